"""Thin Celery tasks: plain arguments in, one service call, a short summary out."""

from __future__ import annotations

import logging
from datetime import date

from celery import shared_task
from django.conf import settings

from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.index import build_index
from harvest.embeddings.services import embed_papers
from harvest.models import HarvestRun, ReadingEmbedding, Source, Version
from harvest.runs import harvest_source
from harvest.search_index import index_pending_papers
from harvest.signals import versions_embedded
from harvest.sources.base import Window
from harvest.sources.registry import get_source_class
from harvest.table_statistics import analyze_library_if_grown

logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    name="harvest.run_source",
    soft_time_limit=settings.HARVEST_SOFT_TIME_LIMIT,
    time_limit=settings.HARVEST_TIME_LIMIT,
)
def run_source(self, slug: str, date_from: str | None = None, date_until: str | None = None) -> str:
    """One check of one source. A request is tried once here; a failure that
    may pass (no connection, HTTP 429 or 5xx) is recorded on the run and the
    check queued again later (PAPERTRAIL_HTTP_BACKOFF_BASE seconds, doubling,
    at least what Retry-After asked, PAPERTRAIL_HTTP_MAX_RETRIES times), so a
    worker never sleeps through a retry and stops at once when asked to."""
    if Source.objects.filter(slug=slug, enabled=False).exists():
        logger.info("skipped %s: the source is disabled", slug)
        return f"{slug}: disabled"
    window = Window(
        date_from=date.fromisoformat(date_from) if date_from else None,
        date_until=date.fromisoformat(date_until) if date_until else None,
    )
    run = harvest_source(slug=slug, window=window, client=get_source_class(slug)(retries=0))
    if run is None:
        return f"{slug}: skipped, another run holds the lease"
    if run.retry_in is not None and self.request.retries < settings.HTTP_MAX_RETRIES:
        wait = max(settings.HTTP_BACKOFF_BASE * 2**self.request.retries, run.retry_in)
        logger.warning("%s check failed (%s); queued again in %.0f s", slug, run.problem, wait)
        raise self.retry(countdown=wait)
    if run.new_papers or run.new_versions or run.updated:
        # Named after the run, so the run's own indexing pass can be followed.
        index_search.apply_async(task_id=index_task_id(run))
    return (
        f"{slug} run {run.pk}: {run.status}, {run.seen} seen, {run.new_papers} new papers, "
        f"{run.new_versions} new versions, {run.skipped} skipped"
    )


def index_task_id(run: HarvestRun) -> str:
    """The id of the indexing pass a run queued; with its start time, because
    run ids start again in a new database and results outlive it."""
    return f"harvest.index_search-after-run-{run.pk}-{run.started_at:%Y%m%dT%H%M%S%f}"


@shared_task(
    name="harvest.index_search",
    soft_time_limit=settings.HARVEST_SOFT_TIME_LIMIT,
    time_limit=settings.HARVEST_TIME_LIMIT,
)
def index_search() -> str:
    """Add the papers stored since the last pass to the full-text index
    (harvest/search_index.py says why this follows ingest)."""
    result = index_pending_papers()
    analyzed = analyze_library_if_grown(stored=result.papers)
    return f"{result.papers} papers indexed in {result.seconds:.1f} s" + (", statistics gathered" if analyzed else "")


@shared_task(
    name="harvest.embed_papers",
    soft_time_limit=settings.HARVEST_SOFT_TIME_LIMIT,
    time_limit=settings.HARVEST_TIME_LIMIT,
)
def embed_papers_task(version_ids: list[int] | None = None) -> str:
    """Embed a harvest page's new or changed papers, then a slice of the
    backlog (newest first), and fold the new vectors into the index file once
    they are many. Its own queue (`embed`): harvest and LLM work never wait on it."""
    encoder = get_encoder()
    page = embed_papers(
        paper_ids=set(Version.objects.filter(pk__in=version_ids or []).values_list("paper_id", flat=True)),
        encoder=encoder,
    )
    if version_ids:
        versions_embedded.send(sender=embed_papers_task, version_ids=list(version_ids))
    backlog = embed_papers(limit=settings.PAPERTRAIL_EMBED_BATCH, encoder=encoder)
    size = build_index(model=encoder.name, dimension=encoder.dimension)
    build_index(model=encoder.name, dimension=encoder.dimension, table=ReadingEmbedding)
    folded = f", index rebuilt with {size} papers" if size >= 0 else ""
    return (
        f"{page.papers} papers of the page and {backlog.papers} of the backlog embedded ({backlog.rate:.1f}/s){folded}"
    )
