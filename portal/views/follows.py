"""`/follows/`: a signed-in user's follows and exclusions. The create and edit
form previews, before saving, what the follow would have matched in the last
7 and 30 days; an author follow lists the library's name variants to tick."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.follows.models import Exclusion, Follow
from accounts.follows.selectors import author_candidates, exclusion_list, follow_get, follow_list, follow_preview
from accounts.follows.services import (
    exclusion_create,
    exclusion_delete,
    follow_create,
    follow_delete,
    follow_update,
    max_follows,
)
from accounts.follows.types import DEFAULT_THRESHOLD, MAX_THRESHOLD, MIN_THRESHOLD, normalise_name, threshold_band
from accounts.trail.selectors import trail_unread_counts
from portal.forms import DELIVERIES, KINDS, FollowInput, field_errors, follow_input, follow_input_of


def _page(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    response = render(request, template, context, status=status)
    add_never_cache_headers(response)
    return response


def _index(request: HttpRequest, extra: dict[str, Any] | None = None, status: int = 200) -> HttpResponse:
    counts = trail_unread_counts(user=request.user)
    follows = [(follow, counts.by_follow.get(follow.pk, 0)) for follow in follow_list(user=request.user)]
    for follow, _unread in follows:
        if follow.kind == Follow.Kind.TOPIC:
            follow.threshold_band = threshold_band(float(follow.value.get("threshold", DEFAULT_THRESHOLD)))
    context = {
        "follows": follows,
        "exclusions": exclusion_list(user=request.user),
        "unread_total": counts.total,
        "limit": max_follows(),
        "kinds": KINDS,
        "exclusion_kinds": Exclusion.Kind.values,
        **(extra or {}),
    }
    return _page(request, "portal/follows.html", context, status=status)


@login_required
@require_http_methods(["GET", "HEAD"])
def follow_index(request: HttpRequest) -> HttpResponse:
    return _index(request)


def _candidates(given: FollowInput) -> tuple[list, set[str]]:
    """The library's variants of an author follow's name, and which are ticked."""
    if given.kind != Follow.Kind.AUTHOR or not given.author:
        return [], set()
    candidates = author_candidates(name=given.author)
    ticked = {normalise_name(v) for v in given.variants} or {normalise_name(given.author)}
    return candidates, ticked


def _form(
    request: HttpRequest,
    given: FollowInput,
    *,
    follow: Follow | None = None,
    errors: dict[str, list[str]] | None = None,
    preview: bool = False,
) -> HttpResponse:
    context: dict[str, Any] = {
        "given": given,
        "default_threshold": DEFAULT_THRESHOLD,
        "min_threshold": MIN_THRESHOLD,
        "max_threshold": MAX_THRESHOLD,
        "follow": follow,
        "deliveries": DELIVERIES,
        "errors": field_errors(errors or {}),
        "error_fields": set(errors or {}),
    }
    if given.kind == Follow.Kind.TOPIC:
        context["threshold"], context["threshold_band"] = _threshold_in_words(given.threshold)
    if preview and not errors:
        try:
            context["preview"] = follow_preview(
                user=request.user,
                kind=given.kind,
                value=given.value,
                include_cross_lists=given.include_cross_lists,
                include_revisions=given.include_revisions,
            )
        except ValidationError as exc:
            context["errors"] = field_errors(exc.message_dict)
            context["error_fields"] = set(exc.message_dict)
    context["candidates"], context["ticked"] = _candidates(given)
    return _page(request, "portal/follow_form.html", context, status=400 if context["errors"] else 200)


def _threshold_in_words(raw: str) -> tuple[float | None, str | None]:
    """The topic's threshold as typed and its band ("broad", ...); Nones when it is not a number."""
    try:
        threshold = float(raw) if raw.strip() else DEFAULT_THRESHOLD
    except ValueError:
        return None, None
    if not MIN_THRESHOLD <= threshold <= MAX_THRESHOLD:
        return None, None
    return threshold, threshold_band(threshold)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def follow_new(request: HttpRequest) -> HttpResponse:
    data = request.POST if request.method == "POST" else request.GET
    kind = str(data.get("kind") or "")
    if not kind:
        return _page(request, "portal/follow_kinds.html", {"kinds": KINDS})
    if kind not in KINDS:
        errors = {"kind": [_("Choose one of %(kinds)s.") % {"kinds": ", ".join(KINDS)}]}
        return _page(request, "portal/follow_kinds.html", {"kinds": KINDS, "errors": field_errors(errors)}, 400)
    given = follow_input(data, kind=kind, submitted=request.method == "POST")
    if request.method != "POST":
        given.name = given.name or given.suggested_name()
        # A prefilled form (from a paper or the library) shows its preview at once.
        return _form(request, given, preview=any(given.value.values()))
    if request.POST.get("action") == "preview":
        return _form(request, given, preview=True)
    try:
        follow = follow_create(
            user=request.user,
            kind=kind,
            value=given.value,
            name=given.name or None,  # a name left empty is the value's, as on the API
            include_cross_lists=given.include_cross_lists,
            include_revisions=given.include_revisions,
            muted=given.muted,
            delivery=given.delivery,
        )
    except ValidationError as exc:
        return _form(request, given, errors=exc.message_dict)
    messages.success(request, _("Following “%(name)s”.") % {"name": follow.name})
    return redirect("portal:follows")


def _own_follow(request: HttpRequest, follow_id: int) -> Follow:
    follow = follow_get(user=request.user, follow_id=follow_id)
    if follow is None:
        raise Http404(_("No such follow."))
    return follow


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def follow_edit(request: HttpRequest, follow_id: int) -> HttpResponse:
    follow = _own_follow(request, follow_id)
    if request.method != "POST":
        return _form(request, follow_input_of(follow), follow=follow)
    given = follow_input(request.POST, kind=follow.kind, submitted=True)
    if request.POST.get("action") == "preview":
        return _form(request, given, follow=follow, preview=True)
    try:
        follow_update(
            follow=follow,
            name=given.name,
            value=given.value,
            include_cross_lists=given.include_cross_lists,
            include_revisions=given.include_revisions,
            muted=given.muted,
            delivery=given.delivery,
        )
    except ValidationError as exc:
        return _form(request, given, follow=follow, errors=exc.message_dict)
    messages.success(request, _("Saved “%(name)s”.") % {"name": follow.name})
    return redirect("portal:follows")


@login_required
@require_POST
def follow_remove(request: HttpRequest, follow_id: int) -> HttpResponse:
    follow = _own_follow(request, follow_id)
    follow_delete(follow=follow)
    messages.success(request, _("No longer following “%(name)s”.") % {"name": follow.name})
    return redirect("portal:follows")


@login_required
@require_POST
def exclusion_add(request: HttpRequest) -> HttpResponse:
    kind = str(request.POST.get("kind") or "")
    value = str(request.POST.get("value") or "")
    try:
        if kind not in Exclusion.Kind.values:
            raise ValidationError({"kind": _("Exclude a category or a query.")})
        exclusion_create(user=request.user, kind=kind, value=value)
    except ValidationError as exc:
        # The services name `code` or `q` for the value they were given.
        errors = {"value" if name in ("code", "q") else name: msgs for name, msgs in exc.message_dict.items()}
        given = {"kind": kind, "value": value}
        return _index(request, {"exclusion_errors": field_errors(errors), "exclusion_given": given}, status=400)
    messages.success(request, _("Excluded from every follow: %(value)s") % {"value": value.strip()})
    return redirect("portal:follows")


@login_required
@require_POST
def exclusion_remove(request: HttpRequest, exclusion_id: int) -> HttpResponse:
    if not exclusion_delete(user=request.user, exclusion_id=exclusion_id):
        raise Http404(_("No such exclusion."))
    messages.success(request, _("Exclusion removed."))
    return redirect("portal:follows")
