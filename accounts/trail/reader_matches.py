"""Writes of a reader's own matches (ReaderMatch): a follow's back-fill and
the research record's revisions. Everything else in a trail is composed from
the definitions' matches when read."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from accounts.follows.matching import Hit
from accounts.trail.definition_matches import RETENTION_DAYS
from accounts.trail.lock import TrailWriteResult
from accounts.trail.models import ReaderMatch

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
