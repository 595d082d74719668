"""Saved papers are followed implicitly: a new version of a paper in someone's
research record lands in their trail as a revision card, whatever their
follows say. The card has no follow's reason (TrailMatch); the record is its
reason, and the trail shows what changed since the version the reader last
opened. The card rules are the trail's (accounts.trail): an unread card moves
to the newer version, a read one reopens for it, a dismissed one stays out."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from accounts.follows.matching import PaperFacts
from accounts.records.models import Record
from accounts.records.services import records_refresh_papers
from accounts.trail.lock import TrailWriteResult, lock_trail
from accounts.trail.models import TrailItem
from accounts.trail.writers import sync_matches

CHUNK = 1000


def record_revisions_to_trail(*, events: Iterable[PaperFacts]) -> TrailWriteResult:
    """Cards for the saved papers of a batch's events (the matcher's, one per
    paper) whose version is newer than the one their owner read (never
    opened: than v1)."""
    result = TrailWriteResult()
    latest = {
        event.paper_id: (event.version_id, event.version_number, event.event_at)
        for event in events
        if event.version_number > 1
    }
    papers = sorted(latest)
    for start in range(0, len(papers), CHUNK):
        with transaction.atomic():
            lock_trail()
            _write(papers[start : start + CHUNK], latest, result)
    return result


def _write(papers: list[int], latest: dict, result: TrailWriteResult) -> None:
    # The new version may change what /records/ filters and sorts by.
    records_refresh_papers(paper_ids=papers)
    records = list(Record.objects.filter(paper_id__in=papers).values_list("user_id", "paper_id", "last_read_version"))
    wanted = {(user_id, paper_id) for user_id, paper_id, read in records if latest[paper_id][1] > (read or 1)}
    if not wanted:
        return
    result.hits += len(wanted)
    existing = {
        (item.user_id, item.paper_id): item
        for item in TrailItem.objects.filter(
            user_id__in={user for user, _ in wanted}, paper_id__in={paper for _, paper in wanted}
        )
    }
    new_items, changed = [], []
    for user_id, paper_id in sorted(wanted):
        version_id, number, event_at = latest[paper_id]
        item = existing.get((user_id, paper_id))
        if item is None:
            new_items.append(
                TrailItem(
                    user_id=user_id,
                    paper_id=paper_id,
                    latest_version_id=version_id,
                    latest_version_number=number,
                    latest_event_at=event_at,
                    kind=TrailItem.Kind.REVISION,
                )
            )
            continue
        if item.dismissed or number <= item.latest_version_number:
            # Dismissed, or a follow already brought this version to the card.
            result.skipped += 1
            continue
        if item.unread:
            result.updated += 1
        else:
            result.reopened += 1
        item.unread = True
        item.kind = TrailItem.Kind.REVISION
        item.latest_version_id = version_id
        item.latest_version_number = number
        item.latest_event_at = max(item.latest_event_at, event_at)
        changed.append(item)
    TrailItem.objects.bulk_create(new_items, batch_size=1000)
    result.created += len(new_items)
    if changed:
        TrailItem.objects.bulk_update(
            changed, ["latest_version", "latest_version_number", "latest_event_at", "kind", "unread"], batch_size=1000
        )
        sync_matches(item_ids=[item.pk for item in changed])
