"""The full-text index: writes `harvest_paper.search_vector` for papers whose
title or abstract it has not read yet (`search_pending`).

Why after ingest and not inside it: PostgreSQL's English text search parser
and stemmer cost more than everything else a paper's insert costs
(migration 0006; docs/decisions.md). A harvest stores papers at bulk
speed, then the Celery task `harvest.index_search` (queued by every run that
stored something, and on a short beat interval) indexes them in batches of
its own transactions, so a paper is listed at once and found by a full-text
query seconds later. Management commands that load papers by hand
(`harvest`, `import_snapshot`, `load_offline_bundle`) index before they end.

On SQLite the index is the FTS5 table `harvest_paper_fts` (migration 0011;
rowid = the paper's id, its own copy of title and abstract, Porter-stemmed
words), which the same pass fills: a pending paper's row is replaced by its
current text. The table keeps its own copy so that a row is always removed
whole, whatever the paper says now; rows of deleted papers stay behind
unmatched (searches join on the papers' ids, which SQLite does not reuse).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.utils import timezone

from harvest.models import Paper

BATCH_SIZE = 2000

# The vector of a paper row (the one migration 0003's generated column
# computed): title weighted A, abstract B.
SEARCH_VECTOR_SQL = (
    "setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') "
    "|| setweight(to_tsvector('english'::regconfig, coalesce(abstract, '')), 'B')"
)

# One batch of the pass. SKIP LOCKED lets two passes share the work instead
# of queueing on each other's rows. A writer that changes a paper's text while
# it is being indexed waits for the row and sets `search_pending` again
# (harvest.stores), so nothing is lost.
_INDEX_BATCH = f"""
UPDATE harvest_paper SET search_vector = {SEARCH_VECTOR_SQL}, search_pending = false
WHERE id IN (SELECT id FROM harvest_paper WHERE search_pending ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED)
"""  # noqa: S608 (constant SQL)


# SQLite: the full-text table, and one batch of the pass. Transactions there
# are IMMEDIATE (settings): the batch holds the write lock from its start, so
# its three statements read the same pending papers and no writer changes
# them in between.
FTS_TABLE = "harvest_paper_fts"
_SQLITE_PENDING = "SELECT id FROM harvest_paper WHERE search_pending ORDER BY id LIMIT %s"
_SQLITE_INDEX_BATCH = (
    f"DELETE FROM {FTS_TABLE} WHERE rowid IN ({_SQLITE_PENDING})",  # noqa: S608 (constant SQL)
    f"INSERT INTO {FTS_TABLE} (rowid, title, abstract) "  # noqa: S608 (constant SQL)
    f"SELECT id, title, abstract FROM harvest_paper WHERE id IN ({_SQLITE_PENDING})",
    f"UPDATE harvest_paper SET search_pending = 0 WHERE id IN ({_SQLITE_PENDING})",  # noqa: S608 (constant SQL)
)


@dataclass
class IndexResult:
    papers: int = 0
    batches: int = 0
    seconds: float = 0.0
    error: Exception | None = None

    @property
    def rate(self) -> float:
        return self.papers / self.seconds if self.seconds else 0.0


# Beat runs a pass every five minutes and every harvest queues one: papers
# waiting longer than three missed passes mean no worker is indexing.
STALLED_AFTER = timedelta(minutes=15)


@dataclass(frozen=True)
class IndexStatus:
    """What the sources page says about the full-text index."""

    pending: int
    oldest_waiting_since: datetime | None  # when the longest-waiting paper was stored
    stalled: bool


def index_status(now: datetime | None = None) -> IndexStatus:
    """Two reads of the partial index: how many papers wait, and since when the first one."""
    now = now or timezone.now()
    pending = pending_count()
    oldest = None
    if pending:
        oldest = Paper.objects.filter(search_pending=True).order_by("id").values_list("included_at", flat=True).first()
    return IndexStatus(
        pending=pending,
        oldest_waiting_since=oldest,
        stalled=oldest is not None and now - oldest > STALLED_AFTER,
    )


def pending_count() -> int:
    """Papers stored but not yet in the full-text index (read through the partial index)."""
    return Paper.objects.filter(search_pending=True).count()


def index_pending_papers(
    *,
    batch_size: int = BATCH_SIZE,
    workers: int | None = None,
    progress: Callable[[IndexResult], None] | None = None,
) -> IndexResult:
    """Index every pending paper, one transaction per batch; returns how many.

    The work is PostgreSQL's (the text search parser runs in the backend), so
    `workers` connections (default: one per core, at most four) index
    batches side by side, each on a core. Called inside a transaction, the
    pass runs on the caller's connection alone: other connections would not
    see what that transaction stored."""
    result = IndexResult()
    started = time.monotonic()
    if connection.vendor != "postgresql":
        # One writer at a time on SQLite: batches in turn, on this connection.
        _index_batches(batch_size, result, started, progress, statements=_SQLITE_INDEX_BATCH)
        result.seconds = time.monotonic() - started
        return result
    workers = workers or min(os.cpu_count() or 1, 4)
    if workers == 1 or connection.in_atomic_block:
        _index_batches(batch_size, result, started, progress)
    else:
        counted = threading.Lock()
        threads = [
            threading.Thread(
                target=_index_in_thread, args=(batch_size, result, started, progress, counted), name=f"search-index-{n}"
            )
            for n in range(workers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if result.error is not None:
            raise result.error
    result.seconds = time.monotonic() - started
    return result


def _index_batches(
    batch_size: int, result: IndexResult, started: float, progress, counted=None, statements=(_INDEX_BATCH,)
) -> None:
    """Batches until none is left (or the others hold the rest), on this
    thread's connection; the last statement's row count is the batch's size."""
    while True:
        with transaction.atomic(), connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement, [batch_size])
            indexed = cursor.rowcount
        if indexed <= 0:
            return
        with counted or contextlib.nullcontext():
            result.papers += indexed
            result.batches += 1
            result.seconds = time.monotonic() - started
            if progress is not None:
                progress(result)


def _index_in_thread(batch_size: int, result: IndexResult, started: float, progress, counted) -> None:
    try:
        _index_batches(batch_size, result, started, progress, counted)
    except Exception as exc:  # raised by the caller once every thread is done
        result.error = exc
    finally:
        connection.close()  # this thread's own connection
