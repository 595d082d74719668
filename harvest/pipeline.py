"""Plan the next batch while the current one is written.

Storing a batch is two kinds of work: finding what the library holds of it
and deciding what it changes (`services.read_library`, `plan_upsert`, the
author ids its new links need), and writing that. Done one after the other,
one of the two cores idles while the other works, and the database serves one
query at a time. `planned_ahead` hands batch k+1 to a planner thread, which
reads on its own database connection (so on a second PostgreSQL backend) and
plans while the caller writes batch k.

A plan is made from what the library held when it was read, outside the
batch's transaction, maybe while batch k was being written. `paper_upsert_many`
writes it only if the library still holds exactly that (the store's row
stamps, compared under its write lock): a paper that batch k wrote and batch
k+1 names again, or a write by another source in between, makes it read and
plan batch k+1 again inside its own transaction. Author ids found ahead stay
right (authors are only ever added); names not found then are looked up again
under the lock. Where the store keeps no stamps (SQLite), every batch is
planned inside its transaction, as without this module.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, connections
from django.utils import timezone

from harvest.services import UpsertPlan, merge_duplicates, plan_upsert, read_library
from harvest.source_records import PaperRecord
from harvest.stores import author_names, store_class, store_for_connection

T = TypeVar("T")

logger = logging.getLogger(__name__)


def planned_ahead(
    items: Iterable[T], records_of: Callable[[T], list[PaperRecord]]
) -> Iterator[tuple[T, UpsertPlan | None]]:
    """Yield (item, plan of its records or None) in order. Before item k is
    yielded, item k+1 has been taken from `items` and handed to the planner
    thread, which reads and plans it on its own connection (closed at the
    end) while the caller writes item k. An exception from `items` is raised
    after every item before it has been yielded (Celery's soft time limit,
    raised while this thread waits for the next item, at once). Closing the
    generator closes `items`.

    While it runs, the objects alive when it started (Django, the imported
    modules, their caches: long-lived by nature) are frozen out of the garbage
    collector's sight (gc.freeze): each full collection of a bulk ingest walked
    all of them again, about a fifth of this process's time per record. They
    are handed back when the generator ends or is closed."""
    iterator = iter(items)
    gc.freeze()
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="upsert-planner") as planner:
            try:
                current = next(iterator)
            except StopIteration:
                return
            try:
                yield from _pipeline(planner, iterator, current, records_of)
            finally:
                planner.submit(connections.close_all)  # the planner thread's connection
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
        gc.unfreeze()


def _pipeline(
    planner: ThreadPoolExecutor, iterator: Iterator[T], current: T, records_of: Callable[[T], list[PaperRecord]]
) -> Iterator[tuple[T, UpsertPlan | None]]:
    pending = _start(planner, records_of(current))
    while True:
        try:
            following = next(iterator)
        except StopIteration:
            yield current, _result(pending)
            return
        except SoftTimeLimitExceeded:
            raise  # a time limit stops at once: the run resumes from its checkpoint
        except Exception:
            yield current, _result(pending)
            raise
        # Started before the caller writes `current`, read while it does: a
        # paper both batches name makes the plan stale, and the write lock's
        # check sees it.
        following_plan = _start(planner, records_of(following))
        yield current, _result(pending)
        current, pending = following, following_plan


def _start(planner: ThreadPoolExecutor, records: list[PaperRecord]) -> Future | None:
    if not records or not store_class().checks_stamps:
        return None
    return planner.submit(_read_and_plan, records)


def _read_and_plan(records: list[PaperRecord]) -> UpsertPlan | None:
    """In the planner thread, on its own connection. A plan is an
    optimisation: if it cannot be made (the connection broke, the server
    refused a second one), the batch is planned inside its transaction."""
    try:
        store = store_for_connection()
        batch = merge_duplicates(records)
        state = read_library(store, batch)
        plan = plan_upsert(batch, state, now=timezone.now(), ai_categories=settings.PAPERTRAIL_AI_CATEGORIES)
        plan.author_ids = store.find_authors(author_names(plan.relinks))
    except Exception:
        logger.warning("planning a batch ahead failed; it is planned in its transaction", exc_info=True)
        connection.close_if_unusable_or_obsolete()  # the next batch's plan reconnects
        return None
    return plan


def _result(pending: Future | None) -> UpsertPlan | None:
    return pending.result() if pending is not None else None
