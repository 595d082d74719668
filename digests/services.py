"""Writes for guided readings: which versions get one, the claim that makes a
reading paid for once, and the call through the readings' provider with its
error rules. The budget and the pause switch live in digests/budget.py, the
batches in digests/batches.py; the queue is reached through the
`readings_pending` signal (digests/receivers.py), so nothing here imports
the tasks."""

from __future__ import annotations

import enum
import logging
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from digests import llm
from digests.budget import BudgetSpent, llm_pause, paid_call
from digests.models import GuidedReading
from digests.providers import registry
from digests.providers.base import (
    InvalidReply,
    Provider,
    RateLimited,
    Refused,
    Rejected,
    Repair,
    Reply,
    StructuredRequest,
    Transient,
)
from digests.selectors import INVALID_TWICE_PREFIX, current_prompt_version, is_configured, pause_state
from digests.signals import reading_stored, readings_pending
from harvest.models import Version

logger = logging.getLogger(__name__)

Status = GuidedReading.Status
# Invalid replies: the first is tried once more (a repair where the provider
# needs one), the second fails the reading and is reported.
REPLY_ATTEMPTS = 2
INVALID_TWICE = INVALID_TWICE_PREFIX


class Outcome(enum.StrEnum):
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # someone else holds it, or it is no longer pending
    DEFERRED = "deferred"  # transient trouble: back to pending for a later run
    PAUSED = "paused"  # auth error or spending limit: summarising is paused
    BUDGET = "budget"  # today's budget is spent
    NOT_CONFIGURED = "not configured"


class _Stop(Exception):
    def __init__(self, outcome: Outcome, detail: str) -> None:
        super().__init__(detail)
        self.outcome = outcome
        self.detail = detail


# --- Which versions ----------------------------------------------------------------
def eligible_version_ids(version_ids: Iterable[int]) -> list[int]:
    """Versions in scope: of AI-related papers, or of every paper when
    PAPERTRAIL_SUMMARY_SCOPE is "cs" (the library holds CS papers only), and
    submitted within PAPERTRAIL_SUMMARY_MAX_AGE_DAYS: a first harvest that
    brings decades of old versions must not queue (and pay for) them all."""
    versions = Version.objects.filter(id__in=list(version_ids))
    if settings.PAPERTRAIL_SUMMARY_SCOPE == "ai":
        versions = versions.filter(paper__ai_related=True)
    if settings.PAPERTRAIL_SUMMARY_MAX_AGE_DAYS:
        oldest = timezone.now() - timedelta(days=settings.PAPERTRAIL_SUMMARY_MAX_AGE_DAYS)
        versions = versions.filter(Q(submitted__gte=oldest) | Q(submitted__isnull=True))
    return list(versions.values_list("id", flat=True))


@transaction.atomic
def readings_create_for_versions(*, version_ids: Iterable[int], dispatch: bool = True) -> list[int]:
    """Pending readings (current prompt version) for the in-scope versions, and
    after commit the work enqueued. Without an API key nothing is created."""
    if not is_configured():
        return []
    ids = eligible_version_ids(version_ids)
    if not ids:
        return []
    prompt_version = current_prompt_version()
    GuidedReading.objects.bulk_create(
        [GuidedReading(version_id=vid, prompt_version=prompt_version) for vid in ids],
        ignore_conflicts=True,
        batch_size=1000,
    )
    reading_ids = list(
        GuidedReading.objects.filter(version_id__in=ids, prompt_version=prompt_version, status=Status.PENDING)
        .order_by("id")
        .values_list("id", flat=True)
    )
    if dispatch and reading_ids:
        transaction.on_commit(lambda: dispatch_readings(reading_ids=reading_ids))
    return reading_ids


def dispatch_readings(*, reading_ids: list[int]) -> str:
    """Send readings to the LLM queue (one task each, or one batch where the
    provider has batches and the backlog is long): through the
    readings_pending signal, whose receiver holds the tasks."""
    readings_pending.send(sender=GuidedReading, reading_ids=list(reading_ids))
    return f"dispatched {len(reading_ids)} readings"


def stale_before() -> Any:
    return timezone.now() - timedelta(seconds=settings.PAPERTRAIL_SUMMARY_STALE_SECONDS)


def claimable_filter() -> Q:
    """Pending readings, and running ones whose worker vanished (not in a batch)."""
    return Q(status=Status.PENDING) | Q(status=Status.RUNNING, batch__isnull=True, claimed_at__lt=stale_before())


def reading_claim(*, reading_id: int) -> bool:
    """The atomic claim: one conditional UPDATE; exactly one worker gets 1."""
    updated = (
        GuidedReading.objects.filter(claimable_filter(), pk=reading_id)
        .filter(prompt_version=current_prompt_version())
        .update(status=Status.RUNNING, claimed_at=timezone.now())
    )
    return updated == 1


def _release(reading_id: int, *, error: str) -> None:
    GuidedReading.objects.filter(pk=reading_id, status=Status.RUNNING).update(
        status=Status.PENDING, claimed_at=None, error=error[:2000]
    )


def _fail(reading_id: int, *, error: str) -> None:
    GuidedReading.objects.filter(pk=reading_id, status=Status.RUNNING).update(
        status=Status.FAILED, claimed_at=None, error=error[:2000]
    )


# --- The call ----------------------------------------------------------------------
def _backoff(attempt: int) -> float:
    """Exponential backoff with full jitter: up to base * 2^(attempt-1) seconds."""
    ceiling = settings.PAPERTRAIL_SUMMARY_BACKOFF_BASE * (2 ** (attempt - 1))
    return random.uniform(ceiling / 2, ceiling)


def call_provider(
    provider: Provider, request: StructuredRequest, *, reading_id: int, repair: Repair | None = None
) -> tuple[Reply, Decimal]:
    """One structured reply under the rules, the same for every provider:
    budget reserved first; 429 waits retry-after; overloaded, 5xx, time-outs
    and connection errors back off with jitter, a bounded number of times; a
    refused key or a spending limit pauses summarising; other 4xx fail this
    reading only. InvalidReply passes through (with its cost)."""
    attempts = settings.PAPERTRAIL_SUMMARY_MAX_ATTEMPTS
    last = ""
    for attempt in range(1, attempts + 1):
        GuidedReading.objects.filter(pk=reading_id).update(attempts=F("attempts") + 1)
        try:
            return paid_call(provider, request, repair=repair)
        except BudgetSpent as exc:
            GuidedReading.objects.filter(pk=reading_id).update(attempts=F("attempts") - 1)
            raise _Stop(Outcome.BUDGET, "today's budget is spent") from exc
        except Refused as exc:
            llm_pause(reason=exc.detail)
            raise _Stop(Outcome.PAUSED, exc.detail) from exc
        except RateLimited as exc:
            wait = _backoff(attempt) if exc.retry_after is None else exc.retry_after
            if wait > settings.PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER:
                raise _Stop(Outcome.DEFERRED, f"rate limited, retry-after {wait:.0f}s") from exc
            last = exc.detail
        except Transient as exc:
            wait = _backoff(attempt)
            last = exc.detail
        except Rejected as exc:
            raise _Stop(Outcome.FAILED, exc.detail) from exc
        if attempt < attempts:
            logger.warning("reading %s: %s; attempt %d of %d, waiting %.1fs", reading_id, last, attempt, attempts, wait)
            time.sleep(wait)
    raise _Stop(Outcome.DEFERRED, f"gave up after {attempts} attempts: {last}")


@dataclass(frozen=True)
class ReadingInput:
    request: StructuredRequest
    abstracts: list[str]
    is_revision_with_previous: bool


def reading_input(version: Version) -> ReadingInput | None:
    """The request for a version, or None when there is no text to summarise.
    A version stored without its own text (sources that give dates only) uses
    the paper's text when it is the latest version."""
    paper = version.paper
    latest = version.number == paper.latest_version

    def own(field: str) -> str:
        return getattr(version, field) or (getattr(paper, field) if latest else "")

    current = llm.PaperText(title=own("title"), abstract=own("abstract"), comments=own("comments"))
    if not current.abstract.strip():
        return None
    previous = None
    if version.number > 1:
        before = Version.objects.filter(paper_id=paper.pk, number=version.number - 1).first()
        if before is not None and before.abstract.strip():
            previous = llm.PaperText(title=before.title, abstract=before.abstract, comments=before.comments)
    request = llm.reading_request(
        model=registry.task_choice("readings")[1],
        arxiv_id=paper.arxiv_id,
        number=version.number,
        current=current,
        previous=previous,
    )
    abstracts = [current.abstract] + ([previous.abstract] if previous else [])
    return ReadingInput(request=request, abstracts=abstracts, is_revision_with_previous=previous is not None)


def readings_provider() -> Provider:
    return registry.build(registry.task_config("readings"), timeout=settings.PAPERTRAIL_SUMMARY_TIMEOUT)


def reading_write(*, reading_id: int, provider: Provider | None = None) -> Outcome:
    """Write one guided reading if this worker wins its claim. Never raises
    for the provider's errors: the outcome says what happened and the
    reading's row records it, so one paper's failure never stops the others."""
    if not is_configured():
        return Outcome.NOT_CONFIGURED
    if pause_state()[0]:
        return Outcome.PAUSED
    if not reading_claim(reading_id=reading_id):
        return Outcome.SKIPPED
    reading = GuidedReading.objects.select_related("version__paper").get(pk=reading_id)
    prepared = reading_input(reading.version)
    if prepared is None:
        _fail(reading_id, error="the version has no abstract to summarise")
        return Outcome.FAILED
    try:
        return _write_claimed(reading, prepared, provider or readings_provider())
    except _Stop as stop:
        if stop.outcome == Outcome.FAILED:
            _fail(reading_id, error=stop.detail)
        else:
            _release(reading_id, error=stop.detail)
            _fail_if_exhausted(reading_id)
        logger.warning("reading %s: %s (%s)", reading_id, stop.outcome, stop.detail)
        return stop.outcome
    except Exception:
        _release(reading_id, error="unexpected error; see the worker log")
        raise


def _fail_if_exhausted(reading_id: int) -> None:
    """A reading deferred over and over (3x the per-run attempts) fails for good."""
    limit = settings.PAPERTRAIL_SUMMARY_MAX_ATTEMPTS * 3
    GuidedReading.objects.filter(pk=reading_id, status=Status.PENDING, attempts__gte=limit).update(status=Status.FAILED)


def _write_claimed(reading: GuidedReading, prepared: ReadingInput, provider: Provider) -> Outcome:
    name = provider.config.name
    repair: Repair | None = None
    last_error = ""
    # A reading whose batch reply was invalid has had its one invalid reply.
    attempts = 1 if reading.error.startswith("invalid reply") else REPLY_ATTEMPTS
    for _ in range(attempts):
        try:
            reply, cost = call_provider(provider, prepared.request, reading_id=reading.pk, repair=repair)
        except InvalidReply as exc:
            paid, paid_cost, raw, last_error = exc.paid, exc.cost, exc.raw, str(exc)
        else:
            try:
                content, removed = llm.validated_reading(reply.data, abstracts=prepared.abstracts)
            except InvalidReply as exc:
                paid, paid_cost, raw, last_error = reply, cost, reply.raw, str(exc)
            else:
                break
        logger.warning("reading %s: invalid reply from %s: %s", reading.pk, name, last_error)
        if paid is not None:
            reading_add_usage(reading_id=reading.pk, provider=name, model=paid.model, usage=paid, cost=paid_cost)
        repair = Repair(raw=raw, error=last_error)
    else:
        # Named on the reading even when no reply was paid for, so admin and /sources/ say whose it was.
        GuidedReading.objects.filter(pk=reading.pk, provider="").update(provider=name, model=prepared.request.model)
        raise _Stop(Outcome.FAILED, f"{INVALID_TWICE} from {name}:{prepared.request.model}: {last_error}")
    if removed:
        logger.warning("reading %s: removed %d link(s) not in the abstract", reading.pk, len(removed))
    if not prepared.is_revision_with_previous:
        for lang in llm.LANGUAGES:
            content[lang]["changes"] = ""
    reading_store(reading_id=reading.pk, content=content, provider=name, reply=reply, cost=cost)
    return Outcome.DONE


def reading_add_usage(*, reading_id: int, provider: str, model: str, usage: Any, cost: Decimal) -> None:
    """Count a paid reply that was not stored (invalid) on its reading."""
    GuidedReading.objects.filter(pk=reading_id).update(
        provider=provider,
        model=model,
        input_tokens=F("input_tokens") + usage.input_tokens,
        output_tokens=F("output_tokens") + usage.output_tokens,
        cost_usd=F("cost_usd") + cost,
    )


def reading_store(*, reading_id: int, content: dict, provider: str, reply: Reply, cost: Decimal) -> bool:
    """Store a validated reading as done (only while this run still holds it)."""
    updated = GuidedReading.objects.filter(pk=reading_id, status=Status.RUNNING).update(
        status=Status.DONE,
        content=content,
        provider=provider,
        model=reply.model,
        currency=registry.provider_config(provider).currency,
        input_tokens=F("input_tokens") + reply.input_tokens,
        output_tokens=F("output_tokens") + reply.output_tokens,
        cost_usd=F("cost_usd") + cost,
        written_at=timezone.now(),
        claimed_at=None,
        error="",
    )
    if updated == 1:
        transaction.on_commit(lambda: reading_stored.send(sender=GuidedReading, reading_id=reading_id))
    return updated == 1


# --- Regenerate (admin) -------------------------------------------------------------
@transaction.atomic
def readings_regenerate(*, reading_ids: Iterable[int]) -> list[int]:
    """An explicit redo: a reading of the current prompt version goes back to
    pending (content cleared, tokens and cost kept as what was paid); one of
    an older prompt version gets a reading under the current one. Running
    readings are left alone. Returns the pending ids, dispatched after commit."""
    prompt_version = current_prompt_version()
    readings = GuidedReading.objects.filter(pk__in=list(reading_ids)).exclude(status=Status.RUNNING)
    version_ids = {r.version_id for r in readings if r.prompt_version != prompt_version}
    current_ids = [r.pk for r in readings if r.prompt_version == prompt_version]
    GuidedReading.objects.bulk_create(
        [GuidedReading(version_id=vid, prompt_version=prompt_version) for vid in version_ids],
        ignore_conflicts=True,
    )
    targets = GuidedReading.objects.filter(
        Q(pk__in=current_ids) | Q(version_id__in=version_ids, prompt_version=prompt_version)
    ).exclude(status=Status.RUNNING)
    pending_ids = list(targets.values_list("id", flat=True))
    targets.update(status=Status.PENDING, content={}, written_at=None, error="", attempts=0, claimed_at=None)
    if pending_ids and is_configured():
        transaction.on_commit(lambda: dispatch_readings(reading_ids=pending_ids))
    return pending_ids
