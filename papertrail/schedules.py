"""Beat schedule helpers: cron text from settings -> Celery crontab, the next
run times of an entry (for the sources page), and an `expires` shorter than
the shortest gap between two runs of the entry."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from celery.schedules import crontab

_SEARCH_LIMIT = timedelta(days=62)


def crontab_from(text: str) -> crontab:
    minute, hour, day_of_month, month_of_year, day_of_week = text.split()
    return crontab(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
    )


def _matches(schedule: crontab, moment: datetime) -> bool:
    return (
        moment.minute in schedule.minute
        and moment.hour in schedule.hour
        and moment.isoweekday() % 7 in schedule.day_of_week
        and moment.day in schedule.day_of_month
        and moment.month in schedule.month_of_year
    )


def next_runs(text: str, *, after: datetime, count: int = 1) -> list[datetime]:
    """The next `count` run times (UTC) strictly after `after`, looking ahead at
    most about two months."""
    schedule = crontab_from(text)
    moment = after.astimezone(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
    end = moment + _SEARCH_LIMIT
    runs: list[datetime] = []
    while moment < end and len(runs) < count:
        if _matches(schedule, moment):
            runs.append(moment)
        moment += timedelta(minutes=1)
    return runs


def expires_for(text: str) -> float:
    """Seconds after which an unconsumed run of this entry is dropped: 80 % of
    the shortest gap between consecutive runs over the next weeks."""
    runs = next_runs(text, after=datetime(2026, 1, 4, tzinfo=UTC), count=50)
    gaps = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(runs)]
    return max(30.0, 0.8 * min(gaps)) if gaps else 3600.0
