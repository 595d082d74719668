"""Running one check of one source: lease, pages, checkpoints and the run record.

Every page is stored in one transaction together with the run's checkpoint,
so a run killed at any moment resumes from its last stored page and ends with
exactly what an uninterrupted run stores. The run record says what happened,
for the pages, the admin and the next run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import closing
from functools import partial

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from harvest import locks
from harvest.announcements import announcement_store
from harvest.models import HarvestRun, Source
from harvest.pipeline import planned_ahead
from harvest.readahead import reading_ahead
from harvest.services import UpsertPlan, community_pick_upsert_many, paper_upsert_many
from harvest.signals import versions_created
from harvest.sources.base import Page, SourceClient, Window
from harvest.sources.http import SourceError
from harvest.sources.registry import get_source_class

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[HarvestRun, Page], None]


def source_for(slug: str) -> Source:
    source_class = get_source_class(slug)
    source, _ = Source.objects.get_or_create(slug=slug, defaults={"name": source_class.name})
    return source


def _start_or_resume(source: Source, window: Window) -> HarvestRun:
    """Resume an unfinished run of the same window (its holder is gone: we hold
    the lease now); any other unfinished run is closed as interrupted."""
    wanted = window.as_dict()
    resumed = None
    for run in source.runs.filter(status=HarvestRun.Status.RUNNING).order_by("-started_at"):
        if resumed is None and run.checkpoint.get("window") == wanted:
            resumed = run
            continue
        run.status = HarvestRun.Status.FAILED
        run.finished_at = timezone.now()
        run.error = "interrupted before it finished; a later run covers its window"
        run.save(update_fields=["status", "finished_at", "error"])
    if resumed is not None:
        logger.info("resuming %s run %d after page %d", source.slug, resumed.pk, resumed.pages)
        return resumed
    return HarvestRun.objects.create(source=source, checkpoint={"window": wanted, "resume": {}})


def _store_page(source: Source, run: HarvestRun, page: Page, owner: str, plan: UpsertPlan | None) -> None:
    for text in page.malformed:
        logger.warning("%s: skipped malformed %s", source.slug, text)
    with transaction.atomic():
        # Not durable: a page lost in a crash is lost with the checkpoint below.
        if page.announcement is not None:
            result = announcement_store(records=page.records, announcement=page.announcement, durable=False)
        else:
            result = paper_upsert_many(records=page.records, plan=plan, durable=False)
        new_picks = community_pick_upsert_many(source=source, picks=page.picks) if page.picks else 0
        run.pages += 1
        run.seen += len(page.records) + page.skipped + page.deleted
        run.new_papers += result.new_papers
        run.new_versions += result.new_versions
        run.updated += result.updated
        run.unchanged += result.unchanged
        run.skipped += page.skipped
        run.checkpoint = {
            **run.checkpoint,
            "resume": page.checkpoint,
            "new_picks": run.checkpoint.get("new_picks", 0) + new_picks,
        }
        run.save()
        locks.renew(source, owner)
        if result.created_version_ids:
            transaction.on_commit(
                partial(versions_created.send, sender=HarvestRun, version_ids=result.created_version_ids)
            )


def harvest_source(
    *,
    slug: str,
    window: Window | None = None,
    client: SourceClient | None = None,
    progress: ProgressCallback | None = None,
) -> HarvestRun | None:
    """Run one check of a source. Returns the run, or None when another run of
    the same source holds its lease (logged as skipped)."""
    window = window or Window()
    source = source_for(slug)
    client = client or get_source_class(slug)()
    owner = locks.new_owner()
    if not locks.acquire(source, owner):
        logger.info("skipped %s: another run of this source is in progress", slug)
        return None
    try:
        run = _start_or_resume(source, window)
        try:
            pages = client.pages(
                window=window, source_checkpoint=source.checkpoint, resume=run.checkpoint.get("resume", {})
            )
            if client.pages_read_ahead is None:
                # hf_daily's pages() asks the library: each page is taken
                # only once the one before it is stored.
                planned = ((page, None) for page in pages)
            else:
                pages = reading_ahead(pages, mode=client.pages_read_ahead, name=f"harvest-{slug}")
                planned = planned_ahead(pages, records_of=lambda page: page.records)
            with closing(pages), closing(planned):
                for page, plan in planned:
                    _store_page(source, run, page, owner, plan)
                    if progress is not None:
                        progress(run, page)
        except SourceError as exc:
            _finish(run, HarvestRun.Status.FAILED, error=str(exc))
            logger.warning("%s check failed: %s", slug, exc)
            return run
        except (locks.LeaseLost, SoftTimeLimitExceeded):
            # Left running with its checkpoint: the next run resumes it.
            raise
        except Exception as exc:
            _finish(run, HarvestRun.Status.FAILED, error=f"unexpected error: {exc.__class__.__name__}: {exc}")
            raise
        with transaction.atomic():
            found_something = run.new_papers or run.new_versions or run.updated or run.checkpoint.get("new_picks")
            _finish(run, HarvestRun.Status.OK if found_something else HarvestRun.Status.EMPTY)
            source.checkpoint = client.completed_checkpoint(
                window=window, source_checkpoint=source.checkpoint, run_checkpoint=run.checkpoint.get("resume", {})
            )
            source.save(update_fields=["checkpoint"])
        return run
    finally:
        locks.release(source, owner)


def _finish(run: HarvestRun, status: str, *, error: str = "") -> None:
    run.status = status
    run.error = error
    run.finished_at = timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])
