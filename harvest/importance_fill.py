"""Fill the importance signals (harvest/importance.py) of papers stored before
ingest detected them, or again after the detection changed: in batches by
id, writing only rows whose values differ, then ANALYZE of the paper table
(the popular sort is planned from the new columns' statistics, and
PostgreSQL here runs without autovacuum)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection, transaction

from harvest.importance import code_link, venue_acceptance
from harvest.models import Paper
from harvest.services import paper_upvotes_refresh

logger = logging.getLogger(__name__)

DEFAULT_BATCH = 5000


@dataclass
class FillResult:
    read: int = 0
    changed: int = 0  # code link or venue written
    upvotes_changed: int = 0
    skipped: int = 0  # records the detection could not read (logged)
    last_id: int = 0


def paper_signals_fill(
    *, batch_size: int = DEFAULT_BATCH, after_id: int = 0, progress: Callable[[FillResult], None] | None = None
) -> FillResult:
    """Detect every paper's signals from its stored (latest) text, from the
    first id after `after_id`; each batch commits on its own, so a stopped
    run resumes with `after_id` = the last id it reported."""
    result = FillResult(last_id=after_id)
    while True:
        rows = list(
            Paper.objects.filter(id__gt=result.last_id)
            .order_by("id")
            .values_list("id", "abstract", "comments", "code_url", "venue")[:batch_size]
        )
        if not rows:
            break
        changes = []
        for pk, abstract, comments, code_url, venue in rows:
            try:
                found = (code_link(abstract, comments), venue_acceptance(comments))
            except Exception:
                # One odd record must not stop a run over the whole library.
                logger.exception("paper %s: importance signals not read", pk)
                result.skipped += 1
                continue
            if found != (code_url, venue):
                changes.append((pk, *found))
        with transaction.atomic():
            _write(changes)
            result.upvotes_changed += paper_upvotes_refresh(paper_ids=[row[0] for row in rows])
        result.read += len(rows)
        result.changed += len(changes)
        result.last_id = rows[-1][0]
        if progress is not None:
            progress(result)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {connection.ops.quote_name(Paper._meta.db_table)}")
    logger.info(
        "importance signals: %d papers read, %d changed, %d upvotes changed, %d skipped",
        result.read,
        result.changed,
        result.upvotes_changed,
        result.skipped,
    )
    return result


def _write(changes: list[tuple[int, str, str]]) -> None:
    if not changes:
        return
    if connection.vendor == "postgresql":
        ids, codes, venues = (list(column) for column in zip(*changes, strict=True))
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE harvest_paper p SET code_url = s.code_url, venue = s.venue "
                "FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS s(id, code_url, venue) WHERE p.id = s.id",
                [ids, codes, venues],
            )
        return
    Paper.objects.bulk_update(
        [Paper(pk=pk, code_url=code_url, venue=venue) for pk, code_url, venue in changes],
        ["code_url", "venue"],
        batch_size=500,
    )
