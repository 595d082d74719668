"""`/groups/<id>/trail/`: a lab group's trail as one member reads it (the
group's follows' cards, newest event first, with this member's own read
marks), and the marks. Members only: anyone else gets a 404."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.follows.selectors import group_follow_list
from accounts.groups.selectors import group_list
from accounts.trail.models import CardKind
from accounts.trail.selectors import InvalidCursor, group_trail_unread_total, trail_page
from accounts.trail.services import trail_mark_read
from portal.selectors import paper_cards
from portal.views.groups import member_or_404

GROUP_TRAIL_PAGE = 20


@login_required
@require_GET
def group_trail(request: HttpRequest, group_id: int) -> HttpResponse:
    group = member_or_404(request, group_id).group
    follows = group_follow_list(group_id=group.pk)
    context: dict = {
        "group": group,
        "follows": follows,
        "memberships": group_list(user=request.user),
        "entries": [],
        "errors": [],
    }
    follow_id = None
    raw_follow = request.GET.get("follow", "")
    if raw_follow:
        if not raw_follow.isdecimal() or int(raw_follow) not in {follow.pk for follow in follows}:
            context["errors"].append(
                _("%(field)s: %(message)s") % {"field": _("Follow"), "message": _("Give a follow's number.")}
            )
        else:
            follow_id = int(raw_follow)
    kind = request.GET.get("kind", "") or None
    if kind is not None and kind not in CardKind.values:
        context["errors"].append(
            _("%(field)s: %(message)s") % {"field": _("Kind"), "message": _("Use new or revision.")}
        )
    unread_only = request.GET.get("unread", "") in ("1", "true", "on")
    page = None
    if not context["errors"]:
        try:
            page = trail_page(
                user=request.user,
                group_id=group.pk,
                follow_id=follow_id,
                kind=kind,
                unread_only=unread_only,
                cursor=request.GET.get("cursor") or None,
                size=GROUP_TRAIL_PAGE,
            )
        except InvalidCursor:
            context["errors"].append(
                _("%(field)s: %(message)s")
                % {"field": _("Pages"), "message": _("This page link is broken; start from the first page.")}
            )
    if page is not None:
        cards = paper_cards([entry.paper for entry in page.entries])
        context.update(entries=list(zip(page.entries, cards, strict=True)), next_cursor=page.next_cursor)
    context.update(
        follow_id=follow_id,
        kind=kind,
        unread_only=unread_only,
        unread=group_trail_unread_total(user=request.user, group_id=group.pk),
    )
    response = render(request, "portal/group_trail.html", context, status=400 if context["errors"] else 200)
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def group_trail_read(request: HttpRequest, group_id: int) -> HttpResponse:
    """Mark one card (`item`) or the whole group trail read, for this member only."""
    group = member_or_404(request, group_id).group
    raw = request.POST.get("item", "")
    if raw.isdecimal() and len(raw) < 19:
        trail_mark_read(user=request.user, item_ids=[int(raw)], group_id=group.pk)
        return redirect(f"{reverse('portal:group_trail', args=[group.pk])}#t{raw}")
    done = trail_mark_read(user=request.user, group_id=group.pk)
    messages.success(request, _("%(count)d marked as read.") % {"count": done})
    return redirect(reverse("portal:group_trail", args=[group.pk]))
