"""The reader's writes to the trail: marks (read, dismissed). Each first makes
the cards of every match recorded so far (accounts.trail.delivery), so that a
mark covers what the reader could have seen."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from accounts.trail.delivery import trail_catch_up
from accounts.trail.models import TrailItem, TrailMatch
from accounts.trail.signals import cards_dismissed
from accounts.trail.writers import sync_matches


def _catch_up(user: User) -> None:
    """A mark applies to the cards of every match recorded so far, made first:
    a paper opened from the library right after a harvest is read, not a new
    unread card on the next page."""
    trail_catch_up(user=user)


@transaction.atomic
def trail_mark_read(
    *,
    user: User,
    item_ids: Iterable[int] | None = None,
    up_to: datetime | None = None,
    up_to_item: int | None = None,
) -> int:
    """Mark cards read: these ones, or every card whose event is at or before
    `up_to`, or (neither given) the whole trail. With `up_to_item` the bound
    is that card's place in the trail's order (time, then id): cards of the
    same harvest share a time, and "up to here" means this card and those
    listed after it. Returns how many were unread."""
    _catch_up(user)
    items = TrailItem.objects.filter(user=user, unread=True)
    if item_ids is not None:
        items = items.filter(id__in=list(item_ids))
    if up_to is not None and up_to_item is not None:
        items = items.filter(Q(latest_event_at__lt=up_to) | Q(latest_event_at=up_to, id__lte=up_to_item))
    elif up_to is not None:
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
    """Dismissed cards are the recommender's explicit negatives (it listens)."""
    cards_dismissed.send(sender=TrailItem, user_id=user_id)


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
