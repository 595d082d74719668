"""`/groups/`: a researcher's lab groups. A group's pages answer its members
only: anyone else gets a 404, the same as for an id that names nothing; what
only the owner may do (rename, delete, members, invites, the group's follows)
is a 403 for a member. The group's trail is in portal/views/group_trail.py."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.channels.models import Channel
from accounts.channels.selectors import channels_available, group_channel_list
from accounts.follows.selectors import group_follow_get, group_follow_list
from accounts.follows.services import follow_create, follow_delete
from accounts.follows.types import FollowDefinition
from accounts.groups.models import Membership
from accounts.groups.selectors import (
    group_list,
    invite_find,
    invite_link_token,
    invite_list,
    member_list,
    membership_get,
)
from accounts.groups.services import (
    group_create,
    group_delete,
    group_leave,
    group_rename,
    invite_accept,
    invite_create,
    invite_revoke,
    member_remove,
    ownership_transfer,
)
from accounts.groups.types import InviteInvalid
from accounts.trail.selectors import group_trail_unread_total

GROUP_FOLLOW_KINDS = ("category", "author", "query")


def member_or_404(request: HttpRequest, group_id: int) -> Membership:
    membership = membership_get(user=request.user, group_id=group_id)
    if membership is None:
        raise Http404(_("No such group."))
    return membership


def owner_or_403(request: HttpRequest, group_id: int) -> Membership:
    membership = member_or_404(request, group_id)
    if membership.role != Membership.Role.OWNER:
        raise PermissionDenied(_("Only the group's owner may do this."))
    return membership


def group_channels_context(group_id: int) -> dict:
    return {
        "group_channels": group_channel_list(group_id=group_id),
        "channels_available": channels_available(),
        "channel_kinds": Channel.Kind.choices,
        "channel_rhythms": Channel.Rhythm.choices,
        "channel_follows": [(follow.pk, follow.name) for follow in group_follow_list(group_id=group_id)],
    }


def _page(request: HttpRequest, template: str, context: dict, status: int = 200) -> HttpResponse:
    response = render(request, template, context, status=status)
    add_never_cache_headers(response)
    return response


def _errors(error: ValidationError) -> list[str]:
    return [message for messages_ in error.message_dict.values() for message in messages_]


def _detail(request: HttpRequest, group_id: int) -> HttpResponse:
    return redirect(reverse("portal:group_detail", args=[group_id]))


@login_required
@require_http_methods(["GET", "POST"])
def group_index(request: HttpRequest) -> HttpResponse:
    errors: list[str] = []
    if request.method == "POST":
        try:
            group = group_create(owner=request.user, name=request.POST.get("name", ""))
        except ValidationError as error:
            errors = _errors(error)
        else:
            messages.success(
                request, _("The group %(name)s is made; invite others with a link.") % {"name": group.name}
            )
            return _detail(request, group.pk)
    context = {"memberships": group_list(user=request.user), "errors": errors, "name": request.POST.get("name", "")}
    return _page(request, "portal/groups.html", context, status=400 if errors else 200)


@login_required
@require_GET
def group_detail(request: HttpRequest, group_id: int, errors: list[str] | None = None) -> HttpResponse:
    membership = member_or_404(request, group_id)
    group = membership.group
    owner = membership.role == Membership.Role.OWNER
    invites = []
    if owner:
        invites = [
            (invite, request.build_absolute_uri(reverse("portal:group_join", args=[invite_link_token(invite)])))
            for invite in invite_list(group=group)
        ]
    context = {
        "group": group,
        "membership": membership,
        "is_owner": owner,
        "members": member_list(group=group),
        "follows": group_follow_list(group_id=group.pk),
        "invites": invites,
        "unread": group_trail_unread_total(user=request.user, group_id=group.pk),
        "kinds": GROUP_FOLLOW_KINDS,
        "errors": errors or [],
        **group_channels_context(group.pk),
    }
    return _page(request, "portal/group.html", context, status=400 if errors else 200)


@login_required
@require_POST
def group_rename_view(request: HttpRequest, group_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    try:
        group_rename(group=membership.group, name=request.POST.get("name", ""))
    except ValidationError as error:
        request.method = "GET"
        return group_detail(request, group_id, errors=_errors(error))
    return _detail(request, group_id)


@login_required
@require_POST
def group_delete_view(request: HttpRequest, group_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    name = membership.group.name
    group_delete(group=membership.group)
    messages.success(request, _("The group %(name)s is deleted.") % {"name": name})
    return redirect(reverse("portal:groups"))


@login_required
@require_POST
def group_leave_view(request: HttpRequest, group_id: int) -> HttpResponse:
    membership = member_or_404(request, group_id)
    try:
        group_leave(membership=membership)
    except ValidationError as error:
        request.method = "GET"
        return group_detail(request, group_id, errors=_errors(error))
    messages.success(request, _("You left %(name)s.") % {"name": membership.group.name})
    return redirect(reverse("portal:groups"))


@login_required
@require_POST
def group_member_remove(request: HttpRequest, group_id: int, member_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    if not member_remove(group=membership.group, user_id=member_id):
        raise Http404(_("No such member."))
    return _detail(request, group_id)


@login_required
@require_POST
def group_owner_transfer(request: HttpRequest, group_id: int, member_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    if not ownership_transfer(group=membership.group, to_user_id=member_id):
        raise Http404(_("No such member."))
    return _detail(request, group_id)


@login_required
@require_POST
def group_invite_new(request: HttpRequest, group_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    invite_create(group=membership.group, by=request.user)
    return _detail(request, group_id)


@login_required
@require_POST
def group_invite_revoke(request: HttpRequest, group_id: int, invite_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    if not invite_revoke(group=membership.group, invite_id=invite_id):
        raise Http404(_("No such invite."))
    return _detail(request, group_id)


@login_required
@require_POST
def group_follow_new(request: HttpRequest, group_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    kind = request.POST.get("kind", "")
    text = request.POST.get("value", "").strip()
    try:
        if kind not in GROUP_FOLLOW_KINDS:
            raise ValidationError({"kind": _("Choose a category, an author or a keyword query.")})
        definition = FollowDefinition.from_api(kind, [text] if kind == "author" else text)
        follow_create(group_id=membership.group.pk, kind=kind, value=definition)
    except ValidationError as error:
        request.method = "GET"
        return group_detail(request, group_id, errors=_errors(error))
    return _detail(request, group_id)


@login_required
@require_POST
def group_follow_remove(request: HttpRequest, group_id: int, group_follow_id: int) -> HttpResponse:
    membership = owner_or_403(request, group_id)
    follow = group_follow_get(group_id=membership.group.pk, follow_id=group_follow_id)
    if follow is None:
        raise Http404(_("No such follow."))
    follow_delete(follow=follow)
    return _detail(request, group_id)


@login_required
@require_http_methods(["GET", "POST"])
def group_join(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: GET shows the group and a button (a GET never
    joins), POST joins. A link that does not hold is a 404."""
    invite = invite_find(token=token)
    if invite is None:
        raise Http404(_("This invitation link has expired, was revoked or is not valid."))
    if request.method == "POST":
        try:
            membership = invite_accept(user=request.user, token=token)
        except InviteInvalid:
            raise Http404(_("This invitation link has expired, was revoked or is not valid.")) from None
        return _detail(request, membership.group_id)
    already = membership_get(user=request.user, group_id=invite.group_id) is not None
    return _page(request, "portal/group_join.html", {"group": invite.group, "already": already, "token": token})
