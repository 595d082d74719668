"""Papers and revisions per Beijing day over the last weeks, for the overview chart.

A finished day's counts never change (papers and versions are stored with the
moment they were found), so the cached overview keeps each finished day in the
cache for PAST_DAY_SECONDS and counts only today: grouping four weeks of
versions against their papers is slow on a large library. On
PostgreSQL the overview counts today in its one statement (overview.py) and
hands the point in, so the chart then queries nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.core.cache import cache
from django.db.models import Count, Exists, F, OuterRef
from django.db.models.functions import TruncDate

from harvest.models import Paper, Version
from portal.stats.windows import display_zone


@dataclass(frozen=True, slots=True)
class DayPoint:
    day: date
    papers: int
    revisions: int


PAST_DAY_SECONDS = 3 * 24 * 3600


def daily_chart(
    *, now: datetime, days: int, cache_past_days: bool = False, today_point: DayPoint | None = None
) -> list[DayPoint]:
    """One point per Beijing day, the last `days` days up to today (two grouped
    queries, and none for finished days found in the cache). A revision here
    is a version found on a day of a paper included on an earlier day, the
    daily counterpart of the window definition. `today_point`: today's point
    up to `now`, already counted by the caller (the overview's one statement)."""
    zone = display_zone()
    today = now.astimezone(zone).date()
    first = today - timedelta(days=days - 1)
    wanted = [first + timedelta(days=offset) for offset in range(days)]
    known: dict[date, DayPoint] = {}
    if today_point is not None:
        known[today] = today_point
    if cache_past_days:
        keys = {_key(day): day for day in wanted if day < today}
        known |= {keys[key]: DayPoint(keys[key], *value) for key, value in cache.get_many(list(keys)).items()}
    missing = [day for day in wanted if day not in known]
    # Finished days not in the cache are counted up to now, today included
    # (one grouped range); a point the caller counted is kept over that one.
    counted = _count(since=missing[0], until=now, zone=zone) if missing else {}
    if cache_past_days:
        cache.set_many(
            {_key(day): (point.papers, point.revisions) for day, point in counted.items() if day < today},
            PAST_DAY_SECONDS,
        )
    return [known.get(day) or counted.get(day) or DayPoint(day=day, papers=0, revisions=0) for day in wanted]


def _key(day: date) -> str:
    return f"portal:chart-day:v1:{day.isoformat()}"


def day_start(day: date) -> datetime:
    """When a Beijing day begins (an aware datetime)."""
    return datetime.combine(day, time.min, tzinfo=display_zone())


def _count(*, since: date, until: datetime, zone) -> dict[date, DayPoint]:
    start = datetime.combine(since, time.min, tzinfo=zone)
    papers = dict(
        Paper.objects.filter(included_at__gte=start, included_at__lte=until)
        .annotate(day=TruncDate("included_at", tzinfo=zone))
        .values("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    days = (until.astimezone(zone).date() - since).days + 1
    if days == 1:
        # Only today (the cached overview's usual case): versions found today
        # of papers not included since today began, counted against the few
        # hundred papers included today instead of probing each version's paper.
        included_today = Paper.objects.filter(pk=OuterRef("paper_id"), included_at__gte=start)
        revisions = {
            since: Version.objects.filter(discovered_at__gte=start, discovered_at__lte=until)
            .exclude(Exists(included_today))
            .count()
        }
    else:
        revisions = dict(
            Version.objects.filter(discovered_at__gte=start, discovered_at__lte=until)
            .annotate(
                day=TruncDate("discovered_at", tzinfo=zone), paper_day=TruncDate("paper__included_at", tzinfo=zone)
            )
            .filter(paper_day__lt=F("day"))
            .values("day")
            .annotate(n=Count("id"))
            .values_list("day", "n")
        )
    points = {}
    for offset in range(days):
        day = since + timedelta(days=offset)
        points[day] = DayPoint(day=day, papers=papers.get(day, 0), revisions=revisions.get(day, 0))
    return points
