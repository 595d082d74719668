"""Writes of cards: recording matches (the matcher's hits) under the card
rules, and taking a follow's reasons away.

Card rules: one card per (user, paper). New hits on an unread card join it
(the card moves to its newest version); a read card reopens only for a
version newer than the one it showed, and otherwise only gains the
follow's reason, still read; a dismissed card takes nothing until undone.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator

from django.db import connection, transaction
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, QuerySet, Subquery

from accounts.follows.matching import NEW, REVISION, Hit
from accounts.trail.copy import write_hits_copy
from accounts.trail.lock import TrailWriteResult, lock_trail
from accounts.trail.models import TrailItem, TrailMatch

# Users written per transaction: one user's hits are never split, and a
# chunk's existing cards are read with one indexed query.
USER_CHUNK = 500
# Cards a domain to the right keeps in the trail without a follow's reason
# (accounts.records: a saved paper's card), each a filter that takes the kept
# cards out of a queryset of cards about to go.
_card_keepers: list[Callable[[QuerySet[TrailItem]], QuerySet[TrailItem]]] = []


def register_card_keeper(keeper: Callable[[QuerySet[TrailItem]], QuerySet[TrailItem]]) -> None:
    if keeper not in _card_keepers:
        _card_keepers.append(keeper)


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
    same card rules; tests/accounts/trail/test_writers.py holds them equal)."""
    if connection.vendor == "postgresql":
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


def drop_follow_matches(*, follow_id: int, only_unread: bool, paper_id: int | None = None) -> None:
    """Remove a follow's reasons (all, or on unread cards, or on one paper's
    card), then the cards left without any reason, except dismissed ones,
    which remember the dismissal, and those a keeper keeps."""
    matches = TrailMatch.objects.filter(follow_id=follow_id)
    if only_unread:
        matches = matches.filter(unread=True)
    if paper_id is not None:
        matches = matches.filter(item__paper_id=paper_id)
    item_ids = list(matches.values_list("item_id", flat=True))
    TrailMatch.objects.filter(follow_id=follow_id, item_id__in=item_ids).delete()
    if item_ids:
        drop_cards_without_reason(item_ids=item_ids)


def drop_cards_without_reason(*, item_ids: list[int]) -> None:
    cards = TrailItem.objects.filter(id__in=item_ids, dismissed=False).exclude(
        Exists(TrailMatch.objects.filter(item=OuterRef("pk")))
    )
    for keep in _card_keepers:
        cards = keep(cards)
    cards.delete()
