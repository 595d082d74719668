"""Large backlogs through a provider's batch API (Anthropic's Message
Batches, OpenAI's Batch API where an endpoint offers it; half the list
price); a provider without one writes its backlog one reading at a time
(digests/tasks.py decides).

Submitting claims the readings into a local batch row first (pending ->
running with the batch set, one conditional UPDATE), reserves their
worst-case cost against today's budget of the provider, then creates the
batch; a periodic task collects ended batches, validates each result exactly
like a direct reply and settles the budget with the reported usage.
"""

from __future__ import annotations

import logging
import uuid
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from digests import llm
from digests.budget import budget_reserve, budget_settle, llm_pause
from digests.models import GuidedReading, SummaryBatch
from digests.providers import registry
from digests.providers.base import BatchResult, InvalidReply, Provider, ProviderError, Refused, Reply
from digests.reading_sources import checked_reading, reading_input, without_faulty
from digests.selectors import backlog_count, backlog_filter, is_configured, pause_state
from digests.services import (
    NUMBERS_UNCHECKED,
    Outcome,
    dispatch_readings,
    reading_store,
    readings_provider,
    stale_before,
)
from digests.signals import upgrades_pending
from digests.upgrades import upgrade_backlog

logger = logging.getLogger(__name__)

Status = GuidedReading.Status
_LOCAL_PREFIX = "local-"
# Error types in an errored result that a later attempt may get past.
_TRANSIENT_TYPES = {"overloaded_error", "api_error", "rate_limit_error", "timeout_error"}
_PAUSING_TYPES = {"authentication_error", "permission_error", "billing_error"}


def _custom_id(reading_id: int) -> str:
    return f"reading-{reading_id}"


def _reading_id(custom_id: str) -> int | None:
    prefix, _, number = custom_id.partition("-")
    return int(number) if prefix == "reading" and number.isdecimal() else None


def _release(reading_ids: list[int], *, error: str) -> None:
    GuidedReading.objects.filter(pk__in=reading_ids, status=Status.RUNNING).update(
        status=Status.PENDING, batch=None, claimed_at=None, error=error[:2000]
    )


def batch_submit(*, provider: Provider | None = None, limit: int | None = None) -> str:
    """Put up to PAPERTRAIL_SUMMARY_BATCH_MAX pending readings into one batch."""
    if not is_configured():
        return Outcome.NOT_CONFIGURED
    if pause_state()[0]:
        return Outcome.PAUSED
    provider = provider or readings_provider()
    config = provider.config
    if not config.batches:
        return f"{config.name} has no batch API: readings are written one by one"
    local = SummaryBatch.objects.create(batch_id=f"{_LOCAL_PREFIX}{uuid.uuid4().hex}", provider=config.name)
    limit = min(limit or settings.PAPERTRAIL_SUMMARY_BATCH_MAX, settings.PAPERTRAIL_SUMMARY_BATCH_MAX)
    pending = GuidedReading.objects.filter(backlog_filter()).order_by("id")
    candidate_ids = list(pending.values_list("id", flat=True)[:limit])
    GuidedReading.objects.filter(pk__in=candidate_ids, status=Status.PENDING).update(
        status=Status.RUNNING, batch=local, claimed_at=timezone.now()
    )
    readings = list(GuidedReading.objects.filter(batch=local).select_related("version__paper").order_by("id"))
    requests = []
    included: list[int] = []
    reserved_total = Decimal("0")
    reserved_on = None
    for index, reading in enumerate(readings):
        prepared = reading_input(reading.version)
        if prepared is None:
            GuidedReading.objects.filter(pk=reading.pk).update(
                status=Status.FAILED, batch=None, error="the version has no abstract to summarise"
            )
            continue
        estimate = config.worst_case_cost(prepared.request, batch=True)
        day = budget_reserve(amount=estimate, provider=config.name, budget=config.daily_budget)
        if day is None:
            _release([r.pk for r in readings[index:]], error="today's budget is spent")
            break
        reserved_total += estimate
        reserved_on = day
        requests.append((_custom_id(reading.pk), prepared.request))
        included.append(reading.pk)
    if not requests:
        local.delete()
        return f"{Outcome.BUDGET}: no batch submitted" if readings else "no backlog"
    try:
        remote_id = provider.batch_create(requests)
    except (ProviderError, InvalidReply) as exc:
        budget_settle(day=reserved_on, reserved=reserved_total, actual=Decimal("0"), provider=config.name)
        _release(included, error=f"batch submission failed: {exc}"[:500])
        local.delete()
        if isinstance(exc, Refused):
            llm_pause(reason=f"{config.name} refused the batch: {exc.detail}")
            return Outcome.PAUSED
        logger.warning("batch submission failed: %s", exc)
        return f"{Outcome.DEFERRED}: {exc}"
    local.batch_id = remote_id
    local.request_count = len(requests)
    local.reserved_usd = reserved_total
    local.reserved_on = reserved_on
    local.save(update_fields=["batch_id", "request_count", "reserved_usd", "reserved_on"])
    logger.info("submitted batch %s with %d readings", remote_id, len(requests))
    return f"submitted batch {remote_id} with {len(requests)} readings"


def batches_collect(*, provider: Provider | None = None) -> str:
    """Store the results of every ended batch, of whichever provider holds it
    (the readings may have moved to another since); then, when the backlog
    is above the threshold, submit the next batch."""
    if not is_configured():
        return Outcome.NOT_CONFIGURED
    provider = provider or readings_provider()
    collected = 0
    in_progress = SummaryBatch.objects.filter(status=SummaryBatch.Status.IN_PROGRESS).exclude(
        batch_id__startswith=_LOCAL_PREFIX
    )
    for name in sorted(set(in_progress.values_list("provider", flat=True))):
        holder = provider if name == provider.config.name else _provider_named(name)
        if holder is None:
            logger.warning("batches of %s not collected: it has no API key now", name)
            continue
        try:
            collected += _collect_provider(holder, in_progress.filter(provider=name))
        except Refused as exc:
            llm_pause(reason=f"{name} refused the key while collecting batches: {exc.detail}")
            return Outcome.PAUSED
    summary = f"collected {collected} results"
    if not pause_state()[0] and backlog_count() > settings.PAPERTRAIL_SUMMARY_BATCH_THRESHOLD:
        summary += "; " + batch_submit(provider=provider)
    return summary


def _provider_named(name: str) -> Provider | None:
    config = registry.provider_config(name)
    return registry.build(config, timeout=settings.PAPERTRAIL_SUMMARY_TIMEOUT) if config.configured else None


def _collect_provider(provider: Provider, batches) -> int:
    collected = 0
    for batch_pk in list(batches.values_list("pk", flat=True)):
        try:
            with transaction.atomic():
                # One collector per batch: another one that holds it, or has
                # collected it, is passed by, so no result is stored or paid twice.
                batch = batches.select_for_update(skip_locked=True).filter(pk=batch_pk).first()
                if batch is None or not provider.batch_ended(batch.batch_id):
                    continue
                collected += _collect_one(provider, batch)
        except Refused:
            raise
        except (ProviderError, InvalidReply) as exc:
            logger.warning("batch %s not collected: %s", batch_pk, exc)
    return collected


def _collect_one(provider: Provider, batch: SummaryBatch) -> int:
    actual = Decimal("0")
    handled: set[int] = set()
    count = 0
    model = registry.task_choice("readings")[1]
    results = provider.batch_results(
        batch.batch_id, tool_name=llm.TOOL_NAME, model=model, schema=llm.reading_schema(bounded=False)
    )
    for result in results:
        reading_id = _reading_id(result.custom_id)
        reading = (
            GuidedReading.objects.select_related("version__paper")
            .filter(pk=reading_id, batch=batch, status=Status.RUNNING)
            .first()
            if reading_id is not None
            else None
        )
        if reading is None:
            logger.warning("batch %s: result for an unknown or finished request %s", batch.batch_id, result.custom_id)
            continue
        handled.add(reading.pk)
        count += 1
        actual += _store_result(provider, reading, result)
    leftover = list(
        GuidedReading.objects.filter(batch=batch, status=Status.RUNNING)
        .exclude(pk__in=handled)
        .values_list("id", flat=True)
    )
    _release(leftover, error="no result in the batch")
    if batch.reserved_on is not None:
        budget_settle(day=batch.reserved_on, reserved=batch.reserved_usd, actual=actual, provider=batch.provider)
    batch.status = SummaryBatch.Status.ENDED
    batch.ended_at = timezone.now()
    batch.save(update_fields=["status", "ended_at"])
    return count


def _store_result(provider: Provider, reading: GuidedReading, result: BatchResult) -> Decimal:
    """Store one batch result; returns what it cost."""
    config = provider.config
    reply = result.reply
    if reply is not None:
        cost = config.cost(
            model=reply.model, input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, batch=True
        )
        prepared = reading_input(reading.version)
        try:
            if result.error_type:
                raise InvalidReply(result.error_message)
            if prepared is None:
                raise InvalidReply("the version has no text to check the reply against")
            checked = checked_reading(reply.data, prepared)
        except InvalidReply as exc:
            _retry_synchronously(reading, reply, cost, config.name, error=f"invalid reply (batch): {exc}")
            return cost
        numbers_removed = language_removed = 0
        content = checked.content
        if checked.faults and not reading.error.startswith(NUMBERS_UNCHECKED):
            faults = checked.faults.describe()
            _retry_synchronously(reading, reply, cost, config.name, error=f"{NUMBERS_UNCHECKED} (batch): {faults}")
            return cost
        if checked.faults:
            content, numbers_removed, language_removed = without_faulty(checked, prepared)
        reading_store(
            reading_id=reading.pk,
            content=content,
            provider=config.name,
            reply=reply,
            cost=cost,
            checked=checked,
            numbers_removed=numbers_removed,
            language_removed=language_removed,
            text_hash=prepared.text_hash,
        )
        return cost
    if result.error_type in ("canceled", "expired"):
        _release([reading.pk], error=f"batch request {result.error_type}")
        return Decimal("0")
    text = f"batch request errored: {result.error_type}: {result.error_message}"
    if result.error_type in _PAUSING_TYPES:
        llm_pause(reason=f"{config.name} refused a batch request ({result.error_type}).")
    if result.error_type in _TRANSIENT_TYPES or result.error_type in _PAUSING_TYPES:
        _release([reading.pk], error=text)
    else:
        GuidedReading.objects.filter(pk=reading.pk, status=Status.RUNNING).update(
            status=Status.FAILED, claimed_at=None, error=text[:2000]
        )
    return Decimal("0")


def _retry_synchronously(reading: GuidedReading, reply: Reply, cost: Decimal, provider: str, *, error: str) -> None:
    """Back to pending for one more try through the synchronous call, which
    knows from `error` which try this batch reply spent."""
    GuidedReading.objects.filter(pk=reading.pk, status=Status.RUNNING).update(
        status=Status.PENDING,
        batch=None,
        claimed_at=None,
        error=error[:2000],
        provider=provider,
        input_tokens=reading.input_tokens + reply.input_tokens,
        output_tokens=reading.output_tokens + reply.output_tokens,
        cost_usd=reading.cost_usd + cost,
    )


def backlog_dispatch() -> str:
    """The periodic safety net: readings left running by a vanished worker go
    back to pending, and what is pending is sent to the queue, with the
    upgrades from the full text that wait (digests/upgrades.py)."""
    if not is_configured():
        return Outcome.NOT_CONFIGURED
    if pause_state()[0]:
        return Outcome.PAUSED
    GuidedReading.objects.filter(status=Status.RUNNING, batch__isnull=True, claimed_at__lt=stale_before()).update(
        status=Status.PENDING, claimed_at=None, error="worker vanished; back to pending"
    )
    ids = list(
        GuidedReading.objects.filter(backlog_filter())
        .order_by("id")
        .values_list("id", flat=True)[: settings.PAPERTRAIL_SUMMARY_BATCH_MAX]
    )
    upgrade_ids = upgrade_backlog()[: settings.PAPERTRAIL_SUMMARY_BATCH_MAX]
    if upgrade_ids:
        upgrades_pending.send(sender=GuidedReading, reading_ids=upgrade_ids)
    return dispatch_readings(reading_ids=ids) if ids else f"no backlog; {len(upgrade_ids)} upgrades"
