"""Papers and revisions per Beijing day over the last weeks, for the overview chart."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import Count, F
from django.db.models.functions import TruncDate

from harvest.models import Paper, Version
from harvest.stats.windows import display_zone


@dataclass(frozen=True, slots=True)
class DayPoint:
    day: date
    papers: int
    revisions: int


def daily_chart(*, now: datetime, days: int) -> list[DayPoint]:
    """One point per Beijing day, the last `days` days up to today (two grouped
    queries). A revision here is a version found on a day of a paper included
    on an earlier day, the daily counterpart of the window definition."""
    zone = display_zone()
    today = now.astimezone(zone).date()
    first = today - timedelta(days=days - 1)
    since = datetime.combine(first, time.min, tzinfo=zone)
    papers = dict(
        Paper.objects.filter(included_at__gte=since, included_at__lte=now)
        .annotate(day=TruncDate("included_at", tzinfo=zone))
        .values("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    revisions = dict(
        Version.objects.filter(discovered_at__gte=since, discovered_at__lte=now)
        .annotate(day=TruncDate("discovered_at", tzinfo=zone), paper_day=TruncDate("paper__included_at", tzinfo=zone))
        .filter(paper_day__lt=F("day"))
        .values("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    points = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        points.append(DayPoint(day=day, papers=papers.get(day, 0), revisions=revisions.get(day, 0)))
    return points
