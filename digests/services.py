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
from digests.reading_sources import Checked, ReadingInput, checked_reading, reading_input, without_faulty
from digests.selectors import INVALID_TWICE_PREFIX, current_prompt_version, is_configured, pause_state
from digests.signals import reading_stored, readings_pending
from harvest.models import Version

logger = logging.getLogger(__name__)

Status = GuidedReading.Status
# Invalid replies: the first is tried once more (a repair where the provider
# needs one), the second fails the reading and is reported.
REPLY_ATTEMPTS = 2
INVALID_TWICE = INVALID_TWICE_PREFIX
# The error of a reading whose batch reply failed a field's check (a number, a language): its retry is spent.
NUMBERS_UNCHECKED = "unchecked fields"


class Outcome(enum.StrEnum):
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # someone else holds it, or it is no longer pending
    DEFERRED = "deferred"  # transient trouble: back to pending for a later run
    PAUSED = "paused"  # auth error or spending limit: summarising is paused
    BUDGET = "budget"  # today's budget is spent
    NOT_CONFIGURED = "not configured"


class Stop(Exception):
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
            raise Stop(Outcome.BUDGET, "today's budget is spent") from exc
        except Refused as exc:
            llm_pause(reason=exc.detail)
            raise Stop(Outcome.PAUSED, exc.detail) from exc
        except RateLimited as exc:
            wait = _backoff(attempt) if exc.retry_after is None else exc.retry_after
            if wait > settings.PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER:
                raise Stop(Outcome.DEFERRED, f"rate limited, retry-after {wait:.0f}s") from exc
            last = exc.detail
        except Transient as exc:
            wait = _backoff(attempt)
            last = exc.detail
        except Rejected as exc:
            raise Stop(Outcome.FAILED, exc.detail) from exc
        if attempt < attempts:
            logger.warning("reading %s: %s; attempt %d of %d, waiting %.1fs", reading_id, last, attempt, attempts, wait)
            time.sleep(wait)
    raise Stop(Outcome.DEFERRED, f"gave up after {attempts} attempts: {last}")


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
    except Stop as stop:
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


@dataclass(frozen=True)
class Written:
    """A reading that passed its checks, ready to store."""

    content: dict
    checked: Checked
    numbers_removed: int
    language_removed: int
    reply: Reply
    cost: Decimal


def compose_reading(reading: GuidedReading, prepared: ReadingInput, provider: Provider) -> Written:
    """The call and its checks: an invalid reply is tried once more (a repair
    where the provider needs one); a reading with a field
    that states a number the text sent does not, or is not in its language,
    is tried once more, then kept without those sentences (counted). What was paid for and not kept is counted on the
    reading. Raises Stop."""
    name = provider.config.name
    repair: Repair | None = None
    # A reading whose batch reply failed a check has had that try.
    invalid_left = 1 if reading.error.startswith("invalid reply") else REPLY_ATTEMPTS
    number_retry = not reading.error.startswith(NUMBERS_UNCHECKED)
    while True:
        reply = None
        try:
            reply, cost = call_provider(provider, prepared.request, reading_id=reading.pk, repair=repair)
            checked = checked_reading(reply.data, prepared)
        except InvalidReply as exc:
            paid, paid_cost, raw = (exc.paid, exc.cost, exc.raw) if reply is None else (reply, cost, reply.raw)
            logger.warning("reading %s: invalid reply from %s: %s", reading.pk, name, exc)
            if paid is not None:
                reading_add_usage(reading_id=reading.pk, provider=name, model=paid.model, usage=paid, cost=paid_cost)
            invalid_left -= 1
            if invalid_left <= 0:
                # Named on the reading even when no reply was paid for, so admin and /sources/ say whose it was.
                GuidedReading.objects.filter(pk=reading.pk, provider="").update(
                    provider=name, model=prepared.request.model
                )
                raise Stop(Outcome.FAILED, f"{INVALID_TWICE} from {name}:{prepared.request.model}: {exc}") from exc
            repair = Repair(raw=raw, error=str(exc))
            continue
        if checked.faults and number_retry:
            number_retry = False
            logger.warning("reading %s: %s", reading.pk, checked.faults.describe())
            reading_add_usage(reading_id=reading.pk, provider=name, model=reply.model, usage=reply, cost=cost)
            error = f"{checked.faults.describe()}; write each number as the paper does, or leave it out, "
            repair = Repair(raw=reply.raw, error=error + "and write each field in its language")
            continue
        content, numbers, language = without_faulty(checked, prepared) if checked.faults else (checked.content, 0, 0)
        if numbers or language:
            logger.warning("reading %s: sentence(s) removed: %d numbers, %d language", reading.pk, numbers, language)
        if checked.removed_links:
            logger.warning("reading %s: removed %d link(s) not in the abstract", reading.pk, len(checked.removed_links))
        return Written(content, checked, numbers, language, reply, cost)


def _write_claimed(reading: GuidedReading, prepared: ReadingInput, provider: Provider) -> Outcome:
    written = compose_reading(reading, prepared, provider)
    reading_store(
        reading_id=reading.pk,
        content=written.content,
        provider=provider.config.name,
        reply=written.reply,
        cost=written.cost,
        checked=written.checked,
        numbers_removed=written.numbers_removed,
        language_removed=written.language_removed,
        text_hash=prepared.text_hash,
    )
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


def stored_fields(
    *, content: dict, checked: Checked | None, numbers_removed: int, language_removed: int = 0, text_hash: str = ""
) -> dict[str, Any]:
    """What a checked reading sets besides its content: its source, its
    section citations (none for a field left empty), the counts of removed
    sentences and the hash of the text it was sent (no longer stale)."""
    citations = dict(checked.citations) if checked is not None else {}
    if citations:
        citations["fields"] = {k: v for k, v in citations["fields"].items() if content["en"].get(k, "").strip()}
    return {
        "content": content,
        "source": checked.source if checked is not None else GuidedReading.Source.ABSTRACT,
        "citations": citations,
        "numbers_removed": numbers_removed,
        "language_removed": language_removed,
        "text_hash": text_hash,
        "stale": False,
    }


def reading_store(
    *,
    reading_id: int,
    content: dict,
    provider: str,
    reply: Reply,
    cost: Decimal,
    checked: Checked | None = None,
    numbers_removed: int = 0,
    language_removed: int = 0,
    text_hash: str = "",
) -> bool:
    """Store a validated reading as done (only while this run still holds it)."""
    updated = GuidedReading.objects.filter(pk=reading_id, status=Status.RUNNING).update(
        status=Status.DONE,
        **stored_fields(
            content=content,
            checked=checked,
            numbers_removed=numbers_removed,
            language_removed=language_removed,
            text_hash=text_hash,
        ),
        # Written anew (a regeneration): an upgrade asked for the old text has nothing left to do.
        upgrade=GuidedReading.Upgrade.NONE,
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
