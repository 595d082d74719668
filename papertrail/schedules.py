"""Beat schedule helpers: cron text from settings -> Celery crontab, the next
run times of an entry (for the sources page), an `expires` shorter than
the shortest gap between two runs of the entry, and cron expressions read in
a time zone of their own (ZonedCron)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from celery.schedules import BaseSchedule, crontab, schedstate

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


class ZonedCron(BaseSchedule):
    """A beat schedule of one or more cron expressions read in a time zone
    (beat's own crontab reads them in CELERY_TIMEZONE, UTC here): arXiv
    announces at 20:00 US Eastern, which moves by an hour in UTC twice a year.

    Run times are found by stepping through UTC minutes and reading each in
    the zone, so a daylight-saving change neither skips nor repeats a run."""

    def __init__(self, expressions: list[str] | tuple[str, ...], zone: str, nowfun=None, app=None) -> None:
        super().__init__(nowfun=nowfun, app=app)
        self.expressions = tuple(expressions)
        self.zone = zone
        self._zone = ZoneInfo(zone)
        self._crons = [crontab_from(text) for text in self.expressions]

    def next_run(self, after: datetime) -> datetime | None:
        """The first run time (UTC) strictly after `after`."""
        moment = after.astimezone(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)
        end = moment + _SEARCH_LIMIT
        while moment < end:
            local = moment.astimezone(self._zone)
            if any(_matches(cron, local) for cron in self._crons):
                return moment
            if all(local.hour not in cron.hour for cron in self._crons):
                # No run this hour: step to the start of the next local hour.
                moment += timedelta(minutes=60 - local.minute)
                continue
            moment += timedelta(minutes=1)
        return None

    def next_runs(self, *, after: datetime, count: int = 1) -> list[datetime]:
        runs: list[datetime] = []
        while len(runs) < count and (following := self.next_run(runs[-1] if runs else after)) is not None:
            runs.append(following)
        return runs

    def remaining_estimate(self, last_run_at: datetime) -> timedelta:
        following = self.next_run(self.maybe_make_aware(last_run_at))
        now = self.maybe_make_aware(self.now())
        return (following - now) if following is not None else _SEARCH_LIMIT

    def is_due(self, last_run_at: datetime) -> schedstate:
        remaining = self.remaining_estimate(last_run_at).total_seconds()
        if remaining > 0:
            return schedstate(False, remaining)
        # Due: one run for however many were missed, then wait for the next.
        return schedstate(True, max(self.remaining_estimate(self.now()).total_seconds(), 1.0))

    def expires(self) -> float:
        """As expires_for: 80 % of the shortest gap between runs."""
        runs = self.next_runs(after=datetime(2026, 1, 4, tzinfo=UTC), count=100)
        gaps = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(runs)]
        return max(30.0, 0.8 * min(gaps)) if gaps else 3600.0

    def __repr__(self) -> str:
        return f"<ZonedCron {'; '.join(self.expressions)} ({self.zone})>"

    def __reduce__(self):
        # Beat keeps its entries in a shelve (pickled).
        return self.__class__, (self.expressions, self.zone, self.nowfun)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ZonedCron):
            return (self.expressions, self.zone) == (other.expressions, other.zone)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.expressions, self.zone))
