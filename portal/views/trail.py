"""`/trail/`: a signed-in user's trail (one card per paper, newest event
first, keyset pages), the reader's marks on it, and `/me/strip/`, the account
strip the overview loads so that the overview itself is the same for everyone."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from accounts.follows.selectors import follow_list
from accounts.follows.services import author_variant_reject
from accounts.groups.selectors import group_list
from accounts.recommend.selectors import for_you_page, ranking_seed
from accounts.records.selectors import saved_count
from accounts.trail.models import CardKind, TrailProfile
from accounts.trail.selectors import (
    InvalidCursor,
    TrailEntry,
    decode_cursor,
    trail_item_get,
    trail_order_of,
    trail_page,
    trail_unread_total,
)
from accounts.trail.services import trail_dismiss, trail_mark_read, trail_order_set, trail_undismiss
from harvest.badges import version_badges
from portal.selectors import attach_ratings, attach_records, paper_cards

TRAIL_PAGE = 20
KINDS = tuple(CardKind.values)
ORDERS = tuple(TrailProfile.Order.values)


def _highlight_terms(entry: TrailEntry) -> list[str]:
    """The query terms that brought the card (lexemes, or words without full text)."""
    terms: list[str] = []
    for match in entry.matches:
        for term in [*match.reason.get("lexemes", ()), *match.reason.get("words", ())]:
            if term not in terms:
                terms.append(term)
    return terms


# The trail's inputs as the page labels them, to name a refused one.
TRAIL_LABELS = {
    "follow": gettext_lazy("Follow"),
    "kind": gettext_lazy("Kind"),
    "order": gettext_lazy("Order"),
    "cursor": gettext_lazy("Pages"),
    "up_to": gettext_lazy("Mark all as read up to here"),
}


def _labelled(field: str, message: str) -> str:
    return _("%(field)s: %(message)s") % {"field": TRAIL_LABELS[field], "message": message}


def _bad_request(request: HttpRequest, context: dict, field: str, message: str) -> HttpResponse:
    response = render(request, "portal/trail.html", {**context, "errors": [_labelled(field, message)]}, status=400)
    add_never_cache_headers(response)
    return response


@login_required
@require_GET
def trail(request: HttpRequest) -> HttpResponse:
    follows = follow_list(user=request.user)
    context: dict = {
        "follows": follows,
        "kinds": KINDS,
        "entries": [],
        "filters": request.GET,
        # The switch between this trail and the reader's groups' (portal/views/group_trail.py).
        "memberships": group_list(user=request.user),
    }
    follow_id = None
    raw_follow = request.GET.get("follow", "")
    if raw_follow:
        if not raw_follow.isdecimal():
            return _bad_request(request, context, "follow", _("Give a follow's number."))
        follow_id = int(raw_follow)
        if follow_id not in {follow.pk for follow in follows}:
            raise Http404(_("No such follow."))
    kind = request.GET.get("kind", "") or None
    if kind is not None and kind not in KINDS:
        return _bad_request(request, context, "kind", _("Use new or revision."))
    unread_only = request.GET.get("unread", "") in ("1", "true", "on")
    order = request.GET.get("order", "") or trail_order_of(user=request.user)
    if order not in ORDERS:
        return _bad_request(request, context, "order", _("Use for_you or newest."))
    seed = ranking_seed(request.user) if order == TrailProfile.Order.FOR_YOU else None
    # Without a ranking, "for you" is newest first: the same page, fewer queries.
    read_page = for_you_page if seed is not None and seed.ready else trail_page
    try:
        page = read_page(
            user=request.user,
            follow_id=follow_id,
            kind=kind,
            unread_only=unread_only,
            cursor=request.GET.get("cursor") or None,
            size=TRAIL_PAGE,
        )
    except InvalidCursor:
        return _bad_request(request, context, "cursor", _("This page link is broken; start from the first page."))
    cards = attach_ratings(
        attach_records(paper_cards([entry.paper for entry in page.entries]), request.user), request.user
    )
    # A trail card is about the version that brought it: the latest one's
    # badge is the card's already, an older one's is read (one query at most).
    older = [e.version.pk for e in page.entries if e.version and e.version.number != e.paper.latest_version]
    badges = version_badges(older) if older else {}
    for card, entry in zip(cards, page.entries, strict=True):
        card.highlight = _highlight_terms(entry)
        card.badge = badges.get(entry.version.pk, card.badge) if entry.version is not None else card.badge
    undo = None
    if request.GET.get("undo", "").isdecimal():
        undo = trail_item_get(user=request.user, item_id=int(request.GET["undo"]))
        undo = undo if undo is not None and undo.dismissed else None
    raw_at = request.GET.get("at", "")
    undo_at = int(raw_at) if raw_at.isdecimal() and int(raw_at) in {e.item_id for e in page.entries} else None
    context.update(
        # Each card with the one after it: a dismissal's undo takes the dismissed card's place, before that one.
        entries=list(
            zip(page.entries, cards, [*(e.item_id for e in page.entries[1:]), None][: len(cards)], strict=True)
        ),
        next_cursor=page.next_cursor,
        follow_id=follow_id,
        kind=kind,
        unread_only=unread_only,
        undo=undo,
        undo_at=undo_at,
        is_first=not request.GET.get("cursor"),
        order=order,
        ranked=any(entry.score is not None for entry in page.entries),
        seed=seed,
    )
    response = render(request, "portal/trail.html", context)
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def trail_order(request: HttpRequest) -> HttpResponse:
    """Keep the order the trail opens in (the switch above the cards)."""
    order = request.POST.get("order", "")
    if order not in ORDERS:
        messages.error(request, _labelled("order", _("Use for_you or newest.")))
        return redirect("portal:trail")
    trail_order_set(user=request.user, order=order)
    return redirect("portal:trail")


def _own_item(request: HttpRequest, item_id: int) -> TrailEntry:
    item = trail_item_get(user=request.user, item_id=item_id)
    if item is None:
        raise Http404(_("No such trail item."))
    return item


def _next(request: HttpRequest) -> str:
    """The trail view the form was on (its `next`, when it is this site's), without its anchor."""
    target = request.POST.get("next", "")
    if not (target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure())):
        target = reverse("portal:trail")
    return target.split("#")[0]


def _back(request: HttpRequest, item_id: int | None = None) -> HttpResponse:
    """Back to the trail view the form was on, at the card the reader acted on,
    so that the page does not open at its top (htmx swaps the cards in place;
    this anchor serves a browser without scripts)."""
    target = _next(request)
    return redirect(f"{target}#t{item_id}" if item_id is not None else target)


@login_required
@require_GET
def trail_open(request: HttpRequest, item_id: int) -> HttpResponse:
    """Opening a paper from the trail: to the card's version on the paper's
    page, whose own POST once loaded reads the paper's cards (a GET writes
    nothing). The trail's "open" links lead here, and links once copied still work."""
    item = _own_item(request, item_id)
    url = reverse("portal:paper_detail", args=[item.paper.arxiv_id])
    return redirect(f"{url}#v{item.version.number if item.version else 1}")


@login_required
@require_POST
def trail_read(request: HttpRequest, item_id: int) -> HttpResponse:
    item = _own_item(request, item_id)
    trail_mark_read(user=request.user, item_ids=[item.item_id])
    return _back(request, item.item_id)


@login_required
@require_POST
def trail_read_up_to(request: HttpRequest) -> HttpResponse:
    """Read the given card and every card listed after it (its cursor: time,
    then id), or every card whose event is at or before a given time."""
    raw = request.POST.get("up_to", "")
    item_id = None
    try:
        try:
            up_to, item_id = decode_cursor(raw)
        except InvalidCursor:
            up_to = datetime.fromisoformat(raw)
        if up_to.tzinfo is None:
            raise ValueError("a card's time names its zone")
    except ValueError:
        messages.error(request, _labelled("up_to", _("Give the time of a trail card.")))
        return _back(request)
    done = trail_mark_read(user=request.user, up_to=up_to, up_to_item=item_id)
    messages.success(request, _("%(count)d marked as read.") % {"count": done})
    return _back(request, item_id)


@login_required
@require_POST
def trail_read_all(request: HttpRequest) -> HttpResponse:
    """Read the whole trail (the button above the cards, shown without a filter)."""
    done = trail_mark_read(user=request.user)
    messages.success(request, _("%(count)d marked as read.") % {"count": done})
    return _back(request)


@login_required
@require_POST
def trail_not_interested(request: HttpRequest, item_id: int) -> HttpResponse:
    item = _own_item(request, item_id)
    trail_dismiss(user=request.user, item_id=item.item_id)
    # Back to the same view with the undo where the card was (before the card that followed it).
    target = urlsplit(_next(request))
    query = QueryDict(target.query, mutable=True)
    query["undo"] = str(item.item_id)
    query.pop("at", None)
    at = request.POST.get("at", "")
    if at.isdecimal() and len(at) < 19:
        query["at"] = at
    return redirect(f"{target.path}?{query.urlencode()}#undo")


@login_required
@require_POST
def trail_undo(request: HttpRequest, item_id: int) -> HttpResponse:
    item = _own_item(request, item_id)
    trail_undismiss(user=request.user, item_id=item.item_id)
    return _back(request, item.item_id)


@login_required
@require_POST
def trail_not_this_person(request: HttpRequest, item_id: int, follow_id: int) -> HttpResponse:
    item = _own_item(request, item_id)
    if not author_variant_reject(user=request.user, follow_id=follow_id, paper_id=item.paper.pk):
        raise Http404(_("No such author follow."))
    messages.success(request, _("This author follow will no longer match this paper."))
    return _back(request, item.item_id)


@require_GET
def me_strip(request: HttpRequest) -> HttpResponse:
    """The overview's account strip: the reader's follows, unread trail and
    saved papers, or an invitation to sign in. Never cached by anyone."""
    context: dict = {}
    if request.user.is_authenticated:
        context = {
            "follow_count": len(follow_list(user=request.user)),
            "unread": trail_unread_total(user=request.user),
            "saved": saved_count(user=request.user),
        }
    response = render(request, "portal/_me_strip.html", context)
    add_never_cache_headers(response)
    patch_vary_headers(response, ["Cookie"])
    return response
