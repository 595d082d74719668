"""Reads for pages, the API and the admin: guided readings and the state of
summarising (configured, paused, today's spend against the budget, backlog)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from digests.models import DailySpend, GuidedReading, LLMState
from digests.providers import registry

# The error a reading fails with when its provider gave no valid structured reply in two tries.
INVALID_TWICE_PREFIX = "invalid reply twice"


def current_prompt_version() -> str:
    return settings.PAPERTRAIL_SUMMARY_PROMPT_VERSION


def is_configured() -> bool:
    """Whether the readings' provider has its key."""
    return registry.is_configured("readings")


def ask_configured() -> bool:
    """Whether "ask the library"'s provider has its key."""
    return registry.is_configured("ask")


def ask_missing_setting() -> str:
    return registry.missing_key_setting("ask")


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


def spent_today(provider: str, now: datetime | None = None) -> Decimal:
    """Today's spend of `provider`, in its currency."""
    spend = (
        DailySpend.objects.filter(day=budget_day(now), provider=provider).values_list("spent_usd", flat=True).first()
    )
    return spend if spend is not None else Decimal("0")


def readings_by_model(*, start: datetime, end: datetime) -> list[dict]:
    """Readings written in [start, end] per provider and model, most first:
    {"provider", "model", "readings"} (counted per version, as the overview counts)."""
    rows = (
        done_readings(start=start, end=end)
        .values("provider", "model")
        .annotate(readings=Count("version_id", distinct=True))
        .order_by("-readings", "provider", "model")
    )
    return list(rows)


def done_readings_by_model_sql() -> tuple[str, dict[str, str]]:
    """`readings_by_model(...)` as one SQL expression (PostgreSQL: a JSON
    array) over %(start)s and %(end)s, for the overview's single statement."""
    table = GuidedReading._meta.db_table
    sql = (
        "(SELECT coalesce(json_agg(json_build_object('provider', provider, 'model', model, 'readings', n) "  # noqa: S608 - a table name
        "ORDER BY n DESC, provider, model), '[]'::json) FROM (SELECT provider, model, count(DISTINCT version_id) AS n "
        f"FROM {table} WHERE status = %(reading_done)s AND written_at >= %(start)s "
        "AND written_at <= %(end)s GROUP BY provider, model) AS by_model)"
    )
    return sql, {"reading_done": GuidedReading.Status.DONE.value}


def reading_figures(*, start: datetime, end: datetime, failed_since: datetime) -> tuple[list[dict], list[dict]]:
    """For /sources/, in one query: readings written in [start, end] per
    provider and model, and readings failed since `failed_since` because
    their provider gave no valid structured reply in two tries."""
    done = Q(status=GuidedReading.Status.DONE, written_at__gte=start, written_at__lte=end)
    invalid = Q(
        status=GuidedReading.Status.FAILED, error__startswith=INVALID_TWICE_PREFIX, created_at__gte=failed_since
    )
    rows = (
        GuidedReading.objects.filter(done | invalid)
        .values("provider", "model")
        .annotate(written=Count("version_id", distinct=True, filter=done), invalid=Count("id", filter=invalid))
        .order_by("provider", "model")
    )
    written = [{"provider": r["provider"], "model": r["model"], "readings": r["written"]} for r in rows if r["written"]]
    failed = [{"provider": r["provider"], "model": r["model"], "readings": r["invalid"]} for r in rows if r["invalid"]]
    written.sort(key=lambda row: -row["readings"])
    return written, failed


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


def llm_status(now: datetime | None = None) -> dict:
    """What the sources page shows about guided readings: the provider and
    model of each task, today's spend of the readings' provider in its
    currency, and `reason`, which explains why nothing is being written when
    that is the case (not configured, paused, or today's budget reached)."""
    configured = is_configured()
    paused, pause_reason = pause_state()
    provider, model = registry.task_choice("readings")
    config = registry.provider_config(provider)
    spent = spent_today(provider, now)
    budget = config.daily_budget
    budget_reached = configured and (spent >= budget or budget_refused_today(now))
    if not configured:
        reason = f"{registry.missing_key_setting('readings')} is not set: no guided readings are written."
    elif paused:
        reason = pause_reason or "Summarising is paused."
    elif budget_reached:
        reason = (
            f"Today's budget of {config.currency}{budget:.2f} for {provider} is reached "
            f"({config.currency}{spent:.2f} spent); new guided readings resume tomorrow (Beijing time)."
        )
    else:
        reason = ""
    now = now or timezone.now()
    written, invalid = reading_figures(start=now - timedelta(hours=24), end=now, failed_since=now - timedelta(days=7))
    return {
        "configured": configured,
        "paused": paused,
        "reason": reason,
        "missing_setting": registry.missing_key_setting("readings"),
        "spent_today_usd": spent,
        "budget_usd": budget,
        "currency": config.currency,
        "backlog": backlog_count(),
        "budget_reached": budget_reached,
        "provider": provider,
        "model": model,
        "tasks": [
            {"task": task, "provider": registry.task_choice(task)[0], "model": registry.task_choice(task)[1]}
            for task in registry.TASK_SETTINGS
        ],
        "written_today": written,
        "invalid_replies": invalid,
        "prompt_version": current_prompt_version(),
    }
