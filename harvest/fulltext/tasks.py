"""Thin tasks of the full-text domain, on their own queue (`fulltext`, one
worker with concurrency 1 keeps arXiv's pace of one request every
ARXIV_REQUEST_DELAY seconds)."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from harvest.embeddings.encoders import get_encoder
from harvest.fulltext.services import fetch_waiting, request_popular, store_passages, versions_without_passages
from harvest.signals import full_texts_wanted

logger = logging.getLogger(__name__)

LOCK = "fulltext:fetch-lock"
PASSAGES_LOCK = "fulltext:passages-lock"
# Versions one run cuts and embeds: about half a minute each on two busy cores.
PASSAGE_BATCH = 20


@shared_task(
    name="harvest.fetch_full_texts",
    soft_time_limit=settings.FULLTEXT_SOFT_TIME_LIMIT,
    time_limit=settings.FULLTEXT_SOFT_TIME_LIMIT + 60,
)
def fetch_full_texts() -> str:
    """One run over the waiting versions; runs never overlap (a second worker
    would double the pace towards arXiv)."""
    if not cache.add(LOCK, "1", timeout=settings.FULLTEXT_SOFT_TIME_LIMIT + 120):
        return "another run is reading"
    try:
        outcome = fetch_waiting()
    finally:
        cache.delete(LOCK)
    if outcome.read:
        embed_passages.delay()
    return outcome.summary()


@shared_task(name="harvest.embed_passages", soft_time_limit=settings.FULLTEXT_SOFT_TIME_LIMIT)
def embed_passages() -> str:
    """Cuts and embeds the passages of the versions read since, newest first
    (on the `embed` queue, beside the papers' embeddings)."""
    if not cache.add(PASSAGES_LOCK, "1", timeout=settings.FULLTEXT_SOFT_TIME_LIMIT + 120):
        return "another run is embedding passages"
    try:
        encoder = get_encoder()
        versions = versions_without_passages(model=encoder.name, limit=PASSAGE_BATCH)
        stored = sum(store_passages(version_id=version_id, encoder=encoder) for version_id in versions)
    finally:
        cache.delete(PASSAGES_LOCK)
    return f"{stored} passages of {len(versions)} versions"


@shared_task(name="harvest.select_full_texts")
def select_full_texts() -> str:
    """The day's selection: accounts names saved and "for you" versions
    (through the signal), harvest the most popular."""
    now = timezone.now()
    full_texts_wanted.send(sender=None, for_you=settings.PAPERTRAIL_FULLTEXT_FOR_YOU, now=now)
    popular = request_popular(limit=settings.PAPERTRAIL_FULLTEXT_POPULAR, now=now)
    return f"{popular} popular versions queued"
