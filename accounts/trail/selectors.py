"""Reads of the trail: its pages and unread counts. They only read: the cards
are made by the workers after each matching task and by the reader's own
writes (accounts.trail.delivery)."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count, Q, QuerySet

from accounts.models import User
from accounts.trail.models import TrailItem, TrailMatch
from harvest.models import Paper, Version

MAX_PAGE = 100


class InvalidCursor(ValueError):
    pass


@dataclass
class MatchReason:
    follow_id: int
    follow_name: str
    follow_kind: str
    kind: str
    version_number: int
    reason: dict[str, Any]


@dataclass
class TrailEntry:
    item_id: int
    paper: Paper
    version: Version | None
    kind: str
    unread: bool
    event_at: datetime
    matches: list[MatchReason] = field(default_factory=list)
    dismissed: bool = False
    # Set by a ranking of the trail (accounts.recommend): the card's score and
    # why it ranks where it does (the saved papers and terms it is closest to).
    score: float | None = None
    closest: list = field(default_factory=list)
    terms: list[str] = field(default_factory=list)

    @property
    def cursor(self) -> str:
        """This card's place in the trail's order, as the pages' cursors give it."""
        return encode_cursor(self.event_at, self.item_id)


@dataclass
class TrailPage:
    entries: list[TrailEntry]
    next_cursor: str | None


def pack_cursor(text: str) -> str:
    """A cursor's text as it travels in a URL (unpadded URL-safe base64)."""
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def unpack_cursor(cursor: str) -> str:
    """pack_cursor undone; ValueError or UnicodeDecodeError for anything else."""
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()


def encode_cursor(at: datetime, item_id: int) -> str:
    return pack_cursor(f"{at.isoformat()}|{item_id}")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    try:
        text = unpack_cursor(cursor)
        at, item_id = text.rsplit("|", 1)
        return datetime.fromisoformat(at), int(item_id)
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidCursor("not a trail cursor") from error


def _after(rows: QuerySet, at_field: str, id_field: str, cursor: str | None) -> QuerySet:
    """Keyset: rows strictly after the cursor in (time, id) descending order.
    The `<=` on time alone bounds the index range; the rest is a filter."""
    if not cursor:
        return rows
    at, item_id = decode_cursor(cursor)
    return rows.filter(**{f"{at_field}__lte": at}).filter(
        Q(**{f"{at_field}__lt": at}) | Q(**{f"{id_field}__lt": item_id})
    )


def _cards(*, user: User, follow_id: int | None, kind: str | None, unread_only: bool) -> tuple[QuerySet, str, str]:
    """The user's cards under the trail's filters, as rows of TrailMatch (one
    follow's view, a range of its index) or TrailItem, with the names of
    their event time and card id fields."""
    if follow_id is not None:
        rows = TrailMatch.objects.filter(follow_id=follow_id, user=user)
        rows = rows.filter(unread=True) if unread_only else rows.filter(item__dismissed=False)
        if kind:
            rows = rows.filter(item__kind=kind)
        return rows, "event_at", "item_id"
    rows = TrailItem.objects.filter(user=user, dismissed=False)
    if unread_only:
        rows = rows.filter(unread=True)
    if kind:
        rows = rows.filter(kind=kind)
    return rows, "latest_event_at", "id"


def trail_card_times(
    *,
    user: User,
    follow_id: int | None = None,
    kind: str | None = None,
    unread_only: bool = False,
    since: datetime,
    before: datetime,
) -> list[tuple[int, int, datetime]]:
    """(card id, paper id, event time) of the cards whose event falls in
    [since, before), newest first: one day of the trail, for a ranking."""
    rows, at_field, id_field = _cards(user=user, follow_id=follow_id, kind=kind, unread_only=unread_only)
    paper_field = "item__paper_id" if follow_id is not None else "paper_id"
    rows = rows.filter(**{f"{at_field}__gte": since, f"{at_field}__lt": before})
    return list(rows.order_by(f"-{at_field}", f"-{id_field}").values_list(id_field, paper_field, at_field))


def trail_newest_time(
    *,
    user: User,
    follow_id: int | None = None,
    kind: str | None = None,
    unread_only: bool = False,
    before: datetime | None = None,
) -> datetime | None:
    """The newest card's event time (before `before`), under the filters."""
    rows, at_field, id_field = _cards(user=user, follow_id=follow_id, kind=kind, unread_only=unread_only)
    if before is not None:
        rows = rows.filter(**{f"{at_field}__lt": before})
    return rows.order_by(f"-{at_field}", f"-{id_field}").values_list(at_field, flat=True).first()


def trail_entries(item_ids: list[int]) -> list[TrailEntry]:
    """The entries of these cards, in this order."""
    cards = TrailItem.objects.in_bulk(item_ids)
    return _entries([cards[item_id] for item_id in item_ids if item_id in cards])


def trail_page(
    *,
    user: User,
    follow_id: int | None = None,
    kind: str | None = None,
    unread_only: bool = False,
    cursor: str | None = None,
    size: int = 20,
) -> TrailPage:
    """One page of the trail, newest event first (keyset on the card's event
    time and id, so a page is stable while events arrive: a card that gets a
    new event moves to the top instead of shifting the pages after it)."""
    size = max(1, min(size, MAX_PAGE))
    rows, at_field, id_field = _cards(user=user, follow_id=follow_id, kind=kind, unread_only=unread_only)
    rows = _after(rows, at_field, id_field, cursor).order_by(f"-{at_field}", f"-{id_field}")
    if follow_id is not None:
        item_ids = list(rows.values_list("item_id", flat=True)[: size + 1])
        cards = TrailItem.objects.in_bulk(item_ids)
        items = [cards[item_id] for item_id in item_ids if item_id in cards]
    else:
        items = list(rows[: size + 1])
    more = len(items) > size
    items = items[:size]
    return TrailPage(
        entries=_entries(items),
        next_cursor=encode_cursor(items[-1].latest_event_at, items[-1].pk) if more and items else None,
    )


def _entries(items: list[TrailItem]) -> list[TrailEntry]:
    if not items:
        return []
    papers = Paper.objects.in_bulk([item.paper_id for item in items])
    versions = Version.objects.in_bulk([item.latest_version_id for item in items])
    reasons: dict[int, list[MatchReason]] = {item.pk: [] for item in items}
    for match in (
        TrailMatch.objects.filter(item_id__in=list(reasons)).select_related("follow").order_by("item_id", "follow_id")
    ):
        reasons[match.item_id].append(
            MatchReason(
                follow_id=match.follow_id,
                follow_name=match.follow.name,
                follow_kind=match.follow.kind,
                kind=match.kind,
                version_number=match.version_number,
                reason=match.reason,
            )
        )
    return [
        TrailEntry(
            item_id=item.pk,
            paper=papers[item.paper_id],
            version=versions.get(item.latest_version_id),
            kind=item.kind,
            unread=item.unread,
            event_at=item.latest_event_at,
            matches=reasons[item.pk],
            dismissed=item.dismissed,
        )
        for item in items
        if item.paper_id in papers
    ]


@dataclass
class UnreadCounts:
    total: int
    by_follow: dict[int, int]


def trail_unread_total(*, user: User) -> int:
    """Unread cards in all: one index-only count (the navigation's number)."""
    return TrailItem.objects.filter(user=user, unread=True, dismissed=False).count()


def trail_unread_counts(*, user: User) -> UnreadCounts:
    """Unread cards, in all and per follow: two index-only counts."""
    total = trail_unread_total(user=user)
    by_follow = dict(
        TrailMatch.objects.filter(user=user, unread=True)
        .values("follow_id")
        .annotate(n=Count("id"))
        .values_list("follow_id", "n")
        .order_by()
    )
    return UnreadCounts(total=total, by_follow=by_follow)


def trail_item_get(*, user: User, item_id: int) -> TrailItem | None:
    """The user's trail card of this id (with its paper); None for another user's."""
    return TrailItem.objects.filter(user=user, pk=item_id).select_related("paper").first()


def trail_papers(*, user: User) -> QuerySet[TrailItem]:
    """The ids of the papers of the user's trail cards, dismissed ones left out, as a subquery
    ("ask within my follows")."""
    return TrailItem.objects.filter(user=user, dismissed=False).values("paper_id")
