"""Writes to the trail: the reader's marks (read, dismissed) and own matches
(ReaderMatch: a follow's back-fill, the research record's revisions). A mark
is kept per card only for the cards the reader touched (TrailState); "read
up to here" and "all read" are one mark per reader (TrailReadMark), whatever
the number of cards it covers. Everything else in a trail is composed from
the definitions' matches when read."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.follows.types import Hit
from accounts.models import User
from accounts.trail.composition import LAST_PAPER, Card, CardFilter, compose_papers
from accounts.trail.definition_matches import RETENTION_DAYS
from accounts.trail.models import (
    GroupTrailReadMark,
    GroupTrailState,
    ReaderMatch,
    TrailProfile,
    TrailReadMark,
    TrailState,
)
from accounts.trail.readers import Reader, forget_readers, forget_shared_readers
from accounts.trail.signals import cards_dismissed
from accounts.trail.types import TrailWriteResult
from accounts.trail.windows import all_cards


def _forget(reader: Reader) -> None:
    """The reader's marks changed: their own trail's stored counts go; on a
    group's trail (no stored counts) the request's readers are read again."""
    if reader.group_id is None:
        forget_readers(reader.user_id)
    else:
        forget_shared_readers()


def _new_state(reader: Reader, paper_id: int, **fields) -> TrailState | GroupTrailState:
    if reader.group_id is None:
        return TrailState(user_id=reader.user_id, paper_id=paper_id, **fields)
    return GroupTrailState(group_id=reader.group_id, user_id=reader.user_id, paper_id=paper_id, **fields)


def _read_states(reader: Reader, cards: list[Card], now: datetime) -> None:
    """These cards read at the version they show."""
    if not cards:
        return
    states = {
        state.paper_id: state
        for state in reader.states().select_for_update().filter(paper_id__in=[card.paper_id for card in cards])
    }
    new, changed = [], []
    for card in cards:
        state = states.get(card.paper_id)
        if state is None:
            new.append(_new_state(reader, card.paper_id, read_version=card.version_number, read_at=now))
        elif state.read_version < card.version_number:
            state.read_version, state.read_at = card.version_number, now
            changed.append(state)
    model = TrailState if reader.group_id is None else GroupTrailState
    model.objects.bulk_create(new, batch_size=1000)
    model.objects.bulk_update(changed, ["read_version", "read_at"], batch_size=1000)
    _forget(reader)


@transaction.atomic
def trail_mark_read(
    *,
    user: User,
    item_ids: Iterable[int] | None = None,
    up_to: datetime | None = None,
    up_to_item: int | None = None,
    group_id: int | None = None,
) -> int:
    """Mark cards read: these ones, or every card whose event is at or before
    `up_to`, or (neither given) the whole trail. With `up_to_item` the bound
    is that card's place in the trail's order (time, then id): cards of the
    same harvest share a time, and "up to here" means this card and those
    listed after it. With `group_id`, on that lab group's trail (the caller
    has checked the user is a member): the user's marks there, not the
    group's. Returns how many were unread."""
    # One reader's marks one at a time: a mark reads the cards it covers first.
    User.objects.select_for_update().filter(pk=user.pk).first()
    now = timezone.now()
    reader = Reader.of(user.pk, group_id)
    if item_ids is not None:
        cards = [card for card in compose_papers(reader, item_ids).values() if card.unread]
        _read_states(reader, cards, now)
        return len(cards)
    bound = (up_to or now, up_to_item if up_to is not None and up_to_item is not None else LAST_PAPER)
    covered = [card for card in all_cards(reader, CardFilter(unread_only=True)) if card.place <= bound]
    mark = reader.mark
    if mark is None or bound >= (mark.up_to, mark.up_to_paper):
        # The new mark covers everything the old one did.
        marked = {"up_to": bound[0], "up_to_paper": bound[1], "marked_at": now}
        if group_id is None:
            TrailReadMark.objects.update_or_create(user=user, defaults=marked)
        else:
            GroupTrailReadMark.objects.update_or_create(user=user, group_id=group_id, defaults=marked)
        _forget(reader)
    else:
        # An earlier bound than the mark's: the cards it reads are read one by one.
        _read_states(reader, covered, now)
    return len(covered)


def trail_mark_read_papers(*, user: User, paper_ids: Iterable[int]) -> int:
    """Mark the user's unread cards of these papers read (the paper was opened)."""
    return trail_mark_read(user=user, item_ids=list(paper_ids))


def _dismissals_changed(user_id: int) -> None:
    """Dismissed cards are the recommender's explicit negatives (it listens)."""
    cards_dismissed.send(sender=TrailState, user_id=user_id)


@transaction.atomic
def trail_dismiss(*, user: User, item_id: int, group_id: int | None = None) -> bool:
    """ "Not interested": the card leaves the trail (the user's, or their view
    of a group's) and takes no new event."""
    reader = Reader.of(user.pk, group_id)
    card = compose_papers(reader, [item_id]).get(item_id)
    if card is None or card.dismissed:
        return False
    state = reader.states().select_for_update().filter(paper_id=item_id).first()
    if state is None:
        state = _new_state(reader, item_id)
    state.dismissed, state.dismissed_at, state.undismissed_at = True, timezone.now(), None
    state.save()
    _forget(reader)
    if group_id is None:
        _dismissals_changed(user.pk)
    return True


@transaction.atomic
def trail_undismiss(*, user: User, item_id: int, group_id: int | None = None) -> bool:
    reader = Reader.of(user.pk, group_id)
    done = (
        reader.states().filter(paper_id=item_id, dismissed=True).update(dismissed=False, undismissed_at=timezone.now())
    )
    if done:
        _forget(reader)
        if group_id is None:
            _dismissals_changed(user.pk)
    return bool(done)


def trail_order_set(*, user: User, order: str) -> None:
    """Keep the order the user's trail opens in ("for you" or newest first)."""
    if order not in TrailProfile.Order.values:
        raise ValueError(f"not a trail order: {order}")
    TrailProfile.objects.update_or_create(user=user, defaults={"order": order})


@transaction.atomic
def group_trail_forget(*, user_id: int, group_id: int) -> int:
    """A member left a group (or was removed, or it goes): their marks on its trail go with them."""
    forget_shared_readers()
    GroupTrailReadMark.objects.filter(group_id=group_id, user_id=user_id).delete()
    return GroupTrailState.objects.filter(group_id=group_id, user_id=user_id).delete()[0]


# --- readers' own matches ---------------------------------------------------------
_BATCH = 2000


@transaction.atomic
def reader_matches_add(*, hits: Iterable[Hit]) -> TrailWriteResult:
    """Store these hits as their readers' own matches (`follow_id` None: the
    research record's)."""
    now = timezone.now()
    result = TrailWriteResult()
    batch: list[ReaderMatch] = []
    for hit in hits:
        batch.append(
            ReaderMatch(
                user_id=hit.user_id,
                follow_id=hit.follow_id,
                paper_id=hit.paper_id,
                version_id=hit.version_id,
                version_number=hit.version_number,
                kind=hit.kind,
                event_at=hit.event_at,
                reason=hit.reason,
                created_at=now,
            )
        )
        if len(batch) >= _BATCH:
            result.hits += len(ReaderMatch.objects.bulk_create(batch))
            batch = []
    result.hits += len(ReaderMatch.objects.bulk_create(batch))
    result.created = result.hits
    return result


def reader_matches_drop(*, follow_id: int, paper_id: int | None = None) -> int:
    """A follow's own matches (of one paper), gone with its definition or a "not this person"."""
    rows = ReaderMatch.objects.filter(follow_id=follow_id)
    if paper_id is not None:
        rows = rows.filter(paper_id=paper_id)
    return rows.delete()[0]


def prune_reader_matches(*, days: int = RETENTION_DAYS) -> int:
    """Drop the readers' own matches older than the definitions' retention."""
    cutoff = timezone.now() - timedelta(days=days)
    deleted = 0
    while True:
        ids = list(
            ReaderMatch.objects.filter(created_at__lt=cutoff).order_by("id").values_list("id", flat=True)[:10000]
        )
        if not ids:
            return deleted
        deleted += ReaderMatch.objects.filter(id__in=ids).delete()[0]
