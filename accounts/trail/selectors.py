"""Reads of the trail: its pages, unread counts and cards, composed from the
matches and the reader's marks (accounts.trail.composition). A card's id is
its paper's: one card per paper and reader."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.follows.models import Follow
from accounts.follows.types import FollowDefinition
from accounts.models import User
from accounts.shared.cursors import InvalidCursor, pack_cursor, unpack_cursor
from accounts.trail.composition import (
    LAST_PAPER,
    Card,
    CardFilter,
    compose_papers,
    follow_reason_rows,
)
from accounts.trail.counts import unread_counts
from accounts.trail.models import DefinitionMatch, ReaderMatch, TrailProfile, TrailState
from accounts.trail.readers import Reader, readers_shared, trail_pruned_version
from accounts.trail.windows import WindowAsk, all_cards, cards_page, window_cards, windows_cards
from harvest.models import Paper, Version

__all__ = [
    "MAX_PAGE",
    "InvalidCursor",
    "MatchReason",
    "TrailEntry",
    "TrailPage",
    "UnreadCounts",
    "composed_unread_counts",
    "decode_cursor",
    "encode_cursor",
    "group_trail_unread_total",
    "group_trail_window_cards",
    "readers_shared",
    "trail_card_times",
    "trail_cards",
    "trail_cards_page",
    "trail_dismissed_papers",
    "trail_entries",
    "trail_item_get",
    "trail_newest_time",
    "trail_order_of",
    "trail_page",
    "trail_papers",
    "trail_papers_among",
    "trail_unread_counts",
    "trail_unread_total",
    "trail_window_cards",
    "trail_windows_cards",
]

MAX_PAGE = 100
# Stored counts are checked against their stamp on every read; this only bounds what a cache holds.
COUNTS_SECONDS = 24 * 3600


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


def encode_cursor(at: datetime, item_id: int) -> str:
    return pack_cursor(f"{at.isoformat()}|{item_id}")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    try:
        text = unpack_cursor(cursor)
        at, item_id = text.rsplit("|", 1)
        return datetime.fromisoformat(at), int(item_id)
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidCursor("not a trail cursor") from error


def _filter(follow_id: int | None, kind: str | None, unread_only: bool) -> CardFilter:
    return CardFilter(follow_id=follow_id, kind=kind or None, unread_only=unread_only)


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
    cards = window_cards(Reader.of(user.pk), since, before, _filter(follow_id, kind, unread_only))
    return [(card.paper_id, card.paper_id, card.event_at) for card in cards]


def trail_newest_time(
    *,
    user: User,
    follow_id: int | None = None,
    kind: str | None = None,
    unread_only: bool = False,
    before: datetime | None = None,
) -> datetime | None:
    """The newest card's event time (before `before`), under the filters."""
    place = (before - timedelta(microseconds=1), LAST_PAPER) if before is not None else None
    cards = cards_page(Reader.of(user.pk), _filter(follow_id, kind, unread_only), before=place, size=1)
    return cards[0].event_at if cards else None


def trail_entries(*, user: User, item_ids: list[int]) -> list[TrailEntry]:
    """The entries of these cards, in this order."""
    reader = Reader.of(user.pk)
    cards = compose_papers(reader, item_ids)
    return _entries(reader, [cards[item_id] for item_id in item_ids if item_id in cards])


def trail_page(
    *,
    user: User,
    follow_id: int | None = None,
    kind: str | None = None,
    unread_only: bool = False,
    cursor: str | None = None,
    size: int = 20,
    group_id: int | None = None,
) -> TrailPage:
    """One page of the trail, newest event first (keyset on the card's event
    time and paper, so a page is stable while events arrive: a card that gets
    a new event moves to the top instead of shifting the pages after it).
    With `group_id`, a page of that lab group's trail as this member reads it
    (the caller has checked the membership)."""
    size = max(1, min(size, MAX_PAGE))
    before = decode_cursor(cursor) if cursor else None
    reader = Reader.of(user.pk, group_id)
    cards = cards_page(reader, _filter(follow_id, kind, unread_only), before=before, size=size + 1)
    more = len(cards) > size
    cards = cards[:size]
    return TrailPage(
        entries=_entries(reader, cards),
        next_cursor=encode_cursor(cards[-1].event_at, cards[-1].paper_id) if more and cards else None,
    )


def _entries(reader: Reader, cards: list[Card]) -> list[TrailEntry]:
    if not cards:
        return []
    papers = Paper.objects.in_bulk([card.paper_id for card in cards])
    versions = Version.objects.in_bulk([card.version_id for card in cards])
    reasons = follow_reason_rows(cards)
    entries = []
    for card in cards:
        if card.paper_id not in papers:
            continue
        matches = []
        for match in card.reasons:
            follow = reader.follow(match.follow_id) if match.follow_id is not None else None
            if follow is None:
                continue
            matches.append(
                MatchReason(
                    follow_id=follow.id,
                    follow_name=follow.name,
                    follow_kind=follow.kind,
                    kind=match.kind,
                    version_number=match.number,
                    reason=reasons.get((match.source, match.source_id), {}),
                )
            )
        entries.append(
            TrailEntry(
                item_id=card.paper_id,
                paper=papers[card.paper_id],
                version=versions.get(card.version_id),
                kind=card.kind,
                unread=card.unread,
                event_at=card.event_at,
                matches=matches,
                dismissed=card.dismissed,
            )
        )
    return entries


@dataclass
class UnreadCounts:
    total: int
    by_follow: dict[int, int]


def trail_unread_counts(*, user: User) -> UnreadCounts:
    """Unread cards, in all and per follow that brought them: one statement on
    PostgreSQL (accounts.trail.counts), the composed cards elsewhere. Kept in
    the cache until a match is recorded, the retention prunes, or the reader
    changes what they follow or mark (the navigation asks on every page)."""
    stamp = _counts_stamp(user.pk)
    key = f"trail:unread:{user.pk}"
    stored = cache.get(key)
    if stored is not None and stored[0] == stamp:
        return UnreadCounts(total=stored[1], by_follow=dict(stored[2]))
    reader = Reader.of(user.pk)
    if connection.vendor == "postgresql":
        total, by_follow = unread_counts(reader)
        counts = UnreadCounts(total=total, by_follow=by_follow)
    else:
        counts = composed_unread_counts(reader)
    cache.set(key, (stamp, counts.total, sorted(counts.by_follow.items())), timeout=COUNTS_SECONDS)
    return counts


def _counts_stamp(user_id: int) -> tuple:
    """What the counts were computed from: the newest matches anyone has (two
    primary-key probes), the reader's version (their follows and marks, as
    committed) and the retention's last pruning."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT max(id) FROM accounts_definitionmatch), (SELECT max(id) FROM accounts_readermatch), "
            "(SELECT version FROM accounts_trailprofile WHERE user_id = %s)",
            [user_id],
        )
        found = cursor.fetchone()
    return (*found, trail_pruned_version())


def composed_unread_counts(reader: Reader) -> UnreadCounts:
    """The unread counts of the composed cards themselves."""
    by_follow: dict[int, int] = {}
    cards = all_cards(reader, CardFilter(unread_only=True))
    for card in cards:
        for follow_id in card.follow_ids:
            by_follow[follow_id] = by_follow.get(follow_id, 0) + 1
    return UnreadCounts(total=len(cards), by_follow=by_follow)


def group_trail_unread_total(*, user: User, group_id: int) -> int:
    """Unread cards of a lab group's trail as this member reads it (not stored:
    a group's page asks for it, not every page's navigation)."""
    reader = Reader.of(user.pk, group_id)
    if connection.vendor == "postgresql":
        return unread_counts(reader)[0]
    return composed_unread_counts(reader).total


def trail_unread_total(*, user: User) -> int:
    """Unread cards in all (the navigation's number)."""
    return trail_unread_counts(user=user).total


def trail_item_get(*, user: User, item_id: int, group_id: int | None = None) -> TrailEntry | None:
    """The user's trail card of this id (its paper's), dismissed or not; None
    when the paper is not in the user's trail (or, `group_id`, the group's)."""
    reader = Reader.of(user.pk, group_id)
    card = compose_papers(reader, [item_id]).get(item_id)
    entries = _entries(reader, [card]) if card is not None else []
    return entries[0] if entries else None


def trail_papers(*, user: User) -> QuerySet[Paper]:
    """The ids of the papers the user's follows brought and their own matches,
    dismissed ones left out, as a subquery ("ask within my follows"; the
    follows' rules are not applied: a wider scope, never a narrower one)."""
    reader = Reader.of(user.pk)
    dismissed = TrailState.objects.filter(user_id=user.pk, paper_id=OuterRef("pk"), dismissed=True)
    brought = Q(Exists(ReaderMatch.objects.filter(user_id=user.pk, paper_id=OuterRef("pk"))))
    if reader.follows:
        brought |= Q(
            Exists(DefinitionMatch.objects.filter(definition__in=list(reader.follows), paper_id=OuterRef("pk")))
        )
    return Paper.objects.filter(brought).exclude(Exists(dismissed)).values("pk")


def trail_dismissed_papers(*, user_id: int) -> QuerySet[TrailState]:
    """The papers the reader dismissed (the recommender's negatives), as paper ids."""
    return TrailState.objects.filter(user_id=user_id, dismissed=True).values_list("paper_id", flat=True)


def trail_papers_among(*, user_ids: list[int], paper_ids: list[int]) -> dict[int, set[int]]:
    """Per user, the papers among these that their follows or own matches
    brought, dismissed or not (the recommendations' "outside the follows";
    the follows' rules are not applied: a paper any of their definitions
    matched is theirs). A few queries for any number of users."""
    found: dict[int, set[int]] = {user_id: set() for user_id in user_ids}
    if not user_ids or not paper_ids:
        return found
    by_key: dict[int, set[int]] = {}
    for key, paper_id in DefinitionMatch.objects.filter(paper_id__in=paper_ids).values_list("definition", "paper_id"):
        by_key.setdefault(key, set()).add(paper_id)
    follows = Follow.objects.filter(user_id__in=user_ids, muted=False).values_list("user_id", "kind", "compiled")
    for user_id, kind, compiled in follows.iterator(chunk_size=5000):
        found[user_id] |= by_key.get(FollowDefinition.stored(kind, compiled).key, set())
    for model in (ReaderMatch, TrailState):
        rows = model.objects.filter(user_id__in=user_ids, paper_id__in=paper_ids).values_list("user_id", "paper_id")
        for user_id, paper_id in rows:
            found[user_id].add(paper_id)
    return found


# --- the cards themselves, for the domains that deliver them (records' export, alerts) ---
def trail_cards(*, user_id: int, where: CardFilter) -> list[Card]:
    """Every card under the filter, newest first."""
    return all_cards(Reader.of(user_id), where)


def trail_window_cards(
    *, user_id: int, since: datetime | None, until: datetime | None, where: CardFilter
) -> list[Card]:
    """The cards whose event falls in [since, until), newest first."""
    return window_cards(Reader.of(user_id), since, until, where)


def group_trail_window_cards(
    *, group_id: int, user_id: int, since: datetime | None, until: datetime | None, follow_id: int | None
) -> list[Card]:
    """The group trail's cards in [since, until), newest first, whatever one
    member (`user_id`) dismissed: what the group's chat channel shows."""
    return window_cards(Reader.of(user_id, group_id), since, until, CardFilter(follow_id=follow_id, dismissed=True))


def trail_windows_cards(asks: list[WindowAsk]) -> list[list[Card]]:
    """For each ask, trail_window_cards (a group's: group_trail_window_cards),
    all of them in a fixed number of queries: a run of chat channels."""
    return windows_cards(asks)


def trail_cards_page(*, user_id: int, where: CardFilter, size: int) -> list[Card]:
    """The newest `size` cards under the filter."""
    return cards_page(Reader.of(user_id), where, size=size)


def trail_order_of(*, user: User) -> str:
    """The order the user's trail opens in ("for you" unless they chose newest
    first); no query when the user was read with its profile (select_related)."""
    if User.trail_profile.is_cached(user):
        try:
            return user.trail_profile.order
        except TrailProfile.DoesNotExist:  # read with its profile, and it has none
            return TrailProfile.Order.FOR_YOU
    order = TrailProfile.objects.filter(user_id=user.pk).values_list("order", flat=True).first()
    return order or TrailProfile.Order.FOR_YOU
