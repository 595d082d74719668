"""Reads for pages, the API and the admin: guided readings and the state of
summarising (configured, paused, today's spend against the budget, backlog)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from digests.models import DailySpend, GuidedReading, LLMState


def current_prompt_version() -> str:
    return settings.PAPERTRAIL_SUMMARY_PROMPT_VERSION


def is_configured() -> bool:
    return bool(settings.ANTHROPIC_API_KEY)


def budget_day(now: datetime | None = None) -> date:
    """The budget's day: the calendar day in DISPLAY_TIME_ZONE (Beijing time)."""
    return (now or timezone.now()).astimezone(ZoneInfo(settings.DISPLAY_TIME_ZONE)).date()


def readings_for_versions(*, version_ids: Iterable[int]) -> dict[int, GuidedReading]:
    """Done readings under the current prompt version, keyed by version id (one query)."""
    ids = list(version_ids)
    if not ids:
        return {}
    readings = GuidedReading.objects.filter(
        version_id__in=ids, prompt_version=current_prompt_version(), status=GuidedReading.Status.DONE
    )
    return {reading.version_id: reading for reading in readings}


def done_readings(*, start: datetime, end: datetime) -> QuerySet[GuidedReading]:
    """Readings written in [start, end]: the overview's "new AI guided readings"."""
    return GuidedReading.objects.filter(status=GuidedReading.Status.DONE, written_at__gte=start, written_at__lte=end)


def done_reading_count_sql() -> tuple[str, dict[str, str]]:
    """`done_readings(...)` counted per version as one SQL expression over the
    parameters %(start)s and %(end)s, for a statement that counts many things at
    once (the overview's), with the parameters it adds."""
    sql = (
        f"(SELECT count(DISTINCT version_id) FROM {GuidedReading._meta.db_table} "  # noqa: S608 - a table name
        "WHERE status = %(reading_done)s AND written_at >= %(start)s AND written_at <= %(end)s)"
    )
    return sql, {"reading_done": GuidedReading.Status.DONE.value}


def spent_today_usd(now: datetime | None = None) -> Decimal:
    spend = DailySpend.objects.filter(day=budget_day(now)).values_list("spent_usd", flat=True).first()
    return spend if spend is not None else Decimal("0")


def backlog_filter() -> Q:
    """Readings of the current prompt version still to be written (pending)."""
    return Q(prompt_version=current_prompt_version(), status=GuidedReading.Status.PENDING)


def backlog_count() -> int:
    return GuidedReading.objects.filter(backlog_filter()).count()


def budget_refused_today(now: datetime | None = None) -> bool:
    day = LLMState.objects.filter(pk=1).values_list("budget_exhausted_on", flat=True).first()
    return day is not None and day == budget_day(now)


def pause_state() -> tuple[bool, str]:
    state = LLMState.objects.filter(pk=1).values_list("paused", "reason").first()
    return (bool(state[0]), state[1]) if state else (False, "")


def llm_status() -> dict:
    """What the sources page shows about guided readings. `reason` explains
    why nothing is being written when that is the case (not configured,
    paused, or today's budget reached), else it is empty."""
    configured = is_configured()
    paused, pause_reason = pause_state()
    spent = spent_today_usd()
    budget = Decimal(str(settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD))
    budget_reached = configured and (spent >= budget or budget_refused_today())
    if not configured:
        reason = "ANTHROPIC_API_KEY is not set: no guided readings are written."
    elif paused:
        reason = pause_reason or "Summarising is paused."
    elif budget_reached:
        reason = (
            f"Today's budget of ${budget:.2f} is reached (${spent:.2f} spent); "
            "new guided readings resume tomorrow (Beijing time)."
        )
    else:
        reason = ""
    return {
        "configured": configured,
        "paused": paused,
        "reason": reason,
        "spent_today_usd": spent,
        "budget_usd": budget,
        "backlog": backlog_count(),
        "budget_reached": budget_reached,
        "model": settings.PAPERTRAIL_SUMMARY_MODEL,
        "prompt_version": current_prompt_version(),
    }
