"""Celery tasks for guided readings: thin wrappers that take plain values and
call one service. Names start with "digests." so CELERY_TASK_ROUTES sends
them to the "llm" queue, but for `digests.embed_readings`, which the "embed"
queue runs beside the papers' embeddings."""

from __future__ import annotations

import hashlib
import logging

from celery import shared_task
from django.conf import settings
from django.core.cache import cache

from digests import batches, reading_vectors, services, upgrades
from digests.providers import registry
from digests.translate import cached_translation, translate_query, translation_possible

logger = logging.getLogger(__name__)

# A reading may wait out several retry-afters and backoffs (see services.call_provider).
_READING_SOFT_LIMIT = 30 * 60


@shared_task(name="digests.summarize_version", soft_time_limit=_READING_SOFT_LIMIT, time_limit=_READING_SOFT_LIMIT + 60)
def summarize_version(reading_id: int) -> str:
    """Write the guided reading `reading_id` (a GuidedReading pk) unless someone has."""
    return f"reading {reading_id}: {services.reading_write(reading_id=reading_id)}"


@shared_task(name="digests.upgrade_reading", soft_time_limit=_READING_SOFT_LIMIT, time_limit=_READING_SOFT_LIMIT + 60)
def upgrade_reading(reading_id: int) -> str:
    """Write the abstract reading `reading_id` again from its version's full text, once."""
    return f"upgrade of reading {reading_id}: {upgrades.reading_upgrade(reading_id=reading_id)}"


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


@shared_task(name="digests.translate_search_query", soft_time_limit=120, time_limit=180)
def translate_search_query(text: str) -> str:
    """Translate a search query once and keep it in the cache for the searches after."""
    return "translated" if translate_query(text) is not None else "no translation"


def search_translation(text: str) -> str | None:
    """The query's stored translation for a search, never waiting for one:
    on a miss a translation task is asked for (at most once per query while
    the marker lives) and this search answers with the offline gloss alone.
    Writes no row: the task, on the LLM queue, calls and pays."""
    english = cached_translation(text)
    if english is not None or not translation_possible(text):
        return english
    marker = "digests:translate:requested:" + hashlib.sha256(" ".join(text.split()).encode()).hexdigest()
    if cache.add(marker, 1, settings.PAPERTRAIL_TRANSLATE_TIMEOUT * 4):
        try:
            # retry=False: a broker that is down costs this search no wait.
            translate_search_query.apply_async((text,), retry=False)
        except Exception:  # any broker trouble, whatever its transport raises: the search goes on
            logger.warning("translate: could not enqueue a query's translation", exc_info=True)
            cache.delete(marker)
    return None
