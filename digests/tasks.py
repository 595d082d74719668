"""Celery tasks for guided readings: thin wrappers that take plain values and
call one service. Names start with "digests." so CELERY_TASK_ROUTES sends
them to the "llm" queue, but for `digests.embed_readings`, which the "embed"
queue runs beside the papers' embeddings."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from digests import batches, reading_vectors, services
from digests.providers import registry

# A reading may wait out several retry-afters and backoffs (see services.call_provider).
_READING_SOFT_LIMIT = 30 * 60


@shared_task(name="digests.summarize_version", soft_time_limit=_READING_SOFT_LIMIT, time_limit=_READING_SOFT_LIMIT + 60)
def summarize_version(reading_id: int) -> str:
    """Write the guided reading `reading_id` (a GuidedReading pk) unless someone has."""
    return f"reading {reading_id}: {services.reading_write(reading_id=reading_id)}"


@shared_task(name="digests.submit_batch")
def submit_batch() -> str:
    return batches.batch_submit()


@shared_task(name="digests.collect_batches")
def collect_batches() -> str:
    return batches.batches_collect()


@shared_task(name="digests.drain_backlog")
def drain_backlog() -> str:
    return batches.backlog_dispatch()


@shared_task(name="digests.embed_readings", soft_time_limit=_READING_SOFT_LIMIT, time_limit=_READING_SOFT_LIMIT + 60)
def embed_readings(reading_ids: list[int] | None = None) -> str:
    """Embed these readings' papers' newest readings, or the readings that wait."""
    papers = reading_vectors.papers_of_readings(reading_ids) if reading_ids is not None else None
    result = reading_vectors.readings_embed(paper_ids=papers)
    return f"{result.papers} readings embedded, {result.skipped} unchanged"


def readings_enqueue(reading_ids: list[int]) -> str:
    """One task per reading, or one batch task when there are more than
    PAPERTRAIL_SUMMARY_BATCH_THRESHOLD and the readings' provider has a batch API."""
    batched = registry.task_config("readings").batches
    if batched and len(reading_ids) > settings.PAPERTRAIL_SUMMARY_BATCH_THRESHOLD:
        submit_batch.delay()
        return f"batch requested for {len(reading_ids)} readings"
    for reading_id in reading_ids:
        summarize_version.delay(reading_id)
    return f"enqueued {len(reading_ids)} readings"
