"""Writes to the trail: recording matches (the matcher's hits) under the card
rules, and the reader's marks (read, dismissed).

Card rules: one card per (user, paper). New hits on an unread card join it
(the card moves to its newest version); a read card reopens only for a
version newer than the one it showed, and otherwise only gains the
follow's reason, still read; a dismissed card takes nothing until undone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, Subquery
from django.utils import timezone

from accounts.matching import NEW, REVISION, Hit
from accounts.models import Record, TrailItem, TrailMatch, User

# Users written per transaction: one user's hits are never split, and a
# chunk's existing cards are read with one indexed query.
USER_CHUNK = 500
# One lock for every writer of trail cards (matching tasks, back-fills), so
# that two batches never decide about the same card at once. Readers' marks
# take no lock: they touch only the read and dismissed flags.
_LOCK_KEY = 0x50547472  # "PTtr"


@dataclass
class TrailWriteResult:
    hits: int = 0
    created: int = 0
    updated: int = 0
    reopened: int = 0
    skipped: int = 0

    def add(self, other: TrailWriteResult) -> None:
        self.hits += other.hits
        self.created += other.created
        self.updated += other.updated
        self.reopened += other.reopened
        self.skipped += other.skipped


def lock_trail(*, shared: bool = False, wait: bool = True) -> bool:
    """Take the trail writers' lock (until the transaction ends); `shared` for
    a writer of one user's cards that holds that user's own lock
    (accounts.trail_delivery), so that users are written side by side. Not
    `wait`ing: False when another transaction holds it."""
    if connection.vendor != "postgresql":
        return True
    mode = "_shared" if shared else ""
    with connection.cursor() as cursor:
        if wait:
            cursor.execute(f"SELECT pg_advisory_xact_lock{mode}(%s)", [_LOCK_KEY])
            return True
        cursor.execute(f"SELECT pg_try_advisory_xact_lock{mode}(%s)", [_LOCK_KEY])
        return bool(cursor.fetchone()[0])


def _user_chunks(hits: Iterable[Hit], users: int) -> Iterator[list[Hit]]:
    chunk: list[Hit] = []
    seen: set[int] = set()
    for hit in hits:
        if hit.user_id not in seen and len(seen) >= users:
            yield chunk
            chunk, seen = [], set()
        seen.add(hit.user_id)
        chunk.append(hit)
    if chunk:
        yield chunk


def hits_writer() -> Callable[..., TrailWriteResult]:
    """COPY and set-based statements on PostgreSQL, the ORM elsewhere (the
    same card rules; tests/accounts/test_trail_writers.py holds them equal)."""
    if connection.vendor == "postgresql":
        from accounts.trail_copy import write_hits_copy

        return write_hits_copy
    return write_hits_orm


def trail_record_hits(*, hits: Iterable[Hit], shared: bool = False) -> TrailWriteResult:
    """Record hits (grouped by user, as match_follows yields them) into cards;
    `shared` as lock_trail's."""
    return hits_writer()(hits, shared=shared)


def write_hits_orm(hits: Iterable[Hit], *, user_chunk: int = USER_CHUNK, shared: bool = False) -> TrailWriteResult:
    """The ORM path: one transaction per chunk of users."""
    result = TrailWriteResult()
    for chunk in _user_chunks(hits, user_chunk):
        with transaction.atomic():
            lock_trail(shared=shared)
            _write_chunk(chunk, result)
    return result


def _write_chunk(hits: list[Hit], result: TrailWriteResult) -> None:
    result.hits += len(hits)
    cards: dict[tuple[int, int], list[Hit]] = defaultdict(list)
    for hit in hits:
        cards[(hit.user_id, hit.paper_id)].append(hit)
    users = {user for user, _ in cards}
    papers = {paper for _, paper in cards}
    existing = {
        (item.user_id, item.paper_id): item
        for item in TrailItem.objects.filter(user_id__in=users, paper_id__in=papers).only(
            "id", "user_id", "paper_id", "latest_version_number", "latest_event_at", "kind", "unread", "dismissed"
        )
    }
    new_items: list[tuple[TrailItem, list[Hit]]] = []
    changed: list[TrailItem] = []
    reopened: list[int] = []
    matches: list[TrailMatch] = []
    read_matches: list[TrailMatch] = []
    for key, card_hits in cards.items():
        newest = max(card_hits, key=lambda h: (h.version_number, h.event_at))
        arrived = any(h.kind == NEW for h in card_hits)
        item = existing.get(key)
        if item is None:
            item = TrailItem(
                user_id=key[0],
                paper_id=key[1],
                latest_version_id=newest.version_id,
                latest_version_number=newest.version_number,
                latest_event_at=newest.event_at,
                kind=NEW if arrived else REVISION,
            )
            new_items.append((item, card_hits))
            continue
        if item.dismissed:
            result.skipped += 1
            continue
        newer = newest.version_number > item.latest_version_number
        if not item.unread and not newer:
            # Read, and nothing it has not shown: the reason is kept, the card stays read.
            read_matches.extend(_match(item, h, unread=False) for h in card_hits)
            result.skipped += 1
            continue
        if newer:
            if not item.unread:
                reopened.append(item.pk)
                item.kind = NEW if arrived else REVISION
                item.unread = True
                result.reopened += 1
            else:
                result.updated += 1
            item.latest_version_id = newest.version_id
            item.latest_version_number = newest.version_number
            item.latest_event_at = max(item.latest_event_at, newest.event_at)
            changed.append(item)
        matches.extend(_match(item, h, unread=True) for h in card_hits)

    if new_items:
        TrailItem.objects.bulk_create([item for item, _ in new_items], batch_size=1000)
        result.created += len(new_items)
        for item, card_hits in new_items:
            matches.extend(_match(item, h, unread=True) for h in card_hits)
    if reopened:
        # A reopened card shows why it came back, not why it came before.
        TrailMatch.objects.filter(item_id__in=reopened).delete()
    if changed:
        TrailItem.objects.bulk_update(
            changed, ["latest_version", "latest_version_number", "latest_event_at", "kind", "unread"], batch_size=1000
        )
    if matches:
        TrailMatch.objects.bulk_create(
            matches,
            batch_size=1000,
            update_conflicts=True,
            unique_fields=["item", "follow"],
            update_fields=["version", "version_number", "kind", "reason", "event_at", "unread"],
        )
    if read_matches:
        TrailMatch.objects.bulk_create(read_matches, batch_size=1000, ignore_conflicts=True)
    if changed:
        sync_matches(item_ids=[item.pk for item in changed])


def _match(item: TrailItem, hit: Hit, *, unread: bool) -> TrailMatch:
    return TrailMatch(
        item_id=item.pk,
        follow_id=hit.follow_id,
        user_id=hit.user_id,
        version_id=hit.version_id,
        version_number=hit.version_number,
        kind=hit.kind,
        reason=hit.reason,
        event_at=item.latest_event_at,
        unread=unread,
    )


def sync_matches(*, item_ids: list[int]) -> None:
    """Copy the cards' event time and unread state onto their matches."""
    card = TrailItem.objects.filter(pk=OuterRef("item_id")).annotate(
        counts=ExpressionWrapper(Q(unread=True, dismissed=False), output_field=BooleanField())
    )
    TrailMatch.objects.filter(item_id__in=item_ids).update(
        event_at=Subquery(card.values("latest_event_at")[:1]),
        unread=Subquery(card.values("counts")[:1]),
    )


# --- the reader's marks ----------------------------------------------------------
def _catch_up(user: User) -> None:
    """A mark applies to the cards of every match recorded so far, made first:
    a paper opened from the library right after a harvest is read, not a new
    unread card on the next page."""
    from accounts.trail_delivery import trail_catch_up  # it writes through this module

    trail_catch_up(user=user)


@transaction.atomic
def trail_mark_read(*, user: User, item_ids: Iterable[int] | None = None, up_to: datetime | None = None) -> int:
    """Mark cards read: these ones, or every card whose event is at or before
    `up_to`, or (neither given) the whole trail. Returns how many were unread."""
    _catch_up(user)
    items = TrailItem.objects.filter(user=user, unread=True)
    if item_ids is not None:
        items = items.filter(id__in=list(item_ids))
    if up_to is not None:
        items = items.filter(latest_event_at__lte=up_to)
    ids = list(items.values_list("id", flat=True))
    if not ids:
        return 0
    TrailMatch.objects.filter(item_id__in=ids, unread=True).update(unread=False)
    return TrailItem.objects.filter(id__in=ids).update(unread=False, read_at=timezone.now())


def trail_mark_read_papers(*, user: User, paper_ids: Iterable[int]) -> int:
    """Mark the user's unread cards of these papers read (the paper was opened)."""
    _catch_up(user)
    cards = TrailItem.objects.filter(user=user, paper_id__in=list(paper_ids), unread=True)
    ids = list(cards.values_list("id", flat=True))
    return trail_mark_read(user=user, item_ids=ids) if ids else 0


def _dismissals_changed(user_id: int) -> None:
    """Dismissed cards are the recommender's explicit negatives: retrain (debounced)."""
    from accounts.recommend.services import schedule_retrain

    schedule_retrain(user_id)


@transaction.atomic
def trail_dismiss(*, user: User, item_id: int) -> bool:
    """ "Not interested": the card leaves the trail and takes no new event."""
    done = TrailItem.objects.filter(user=user, pk=item_id, dismissed=False).update(
        dismissed=True, dismissed_at=timezone.now()
    )
    if done:
        TrailMatch.objects.filter(item_id=item_id).update(unread=False)
        _dismissals_changed(user.pk)
    return bool(done)


@transaction.atomic
def trail_undismiss(*, user: User, item_id: int) -> bool:
    done = TrailItem.objects.filter(user=user, pk=item_id, dismissed=True).update(dismissed=False, dismissed_at=None)
    if done:
        sync_matches(item_ids=[item_id])
        _dismissals_changed(user.pk)
    return bool(done)


def drop_follow_matches(*, follow_id: int, only_unread: bool) -> None:
    """Remove a follow's reasons (all, or on unread cards), then the cards left
    without any reason, except dismissed ones, which remember the dismissal,
    and those of saved papers, which the record keeps in the trail."""
    matches = TrailMatch.objects.filter(follow_id=follow_id)
    if only_unread:
        matches = matches.filter(unread=True)
    item_ids = list(matches.values_list("item_id", flat=True))
    matches.delete()
    if item_ids:
        TrailItem.objects.filter(id__in=item_ids, dismissed=False).exclude(
            Exists(TrailMatch.objects.filter(item=OuterRef("pk")))
        ).exclude(Exists(Record.objects.filter(user=OuterRef("user_id"), paper=OuterRef("paper_id")))).delete()
