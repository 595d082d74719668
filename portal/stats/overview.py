"""The overview numbers: window counts, freshness, totals and the banner rule.

Counting the whole library on every request would not scale, so the pages read
`overview_stats_cached()`: numbers stored in the cache, which the Celery task
`portal.refresh_overview_stats` (harvest/stats/tasks.py) recomputes every
minute, so that no page request pays for computing them. A request computes
them itself only when nothing is stored or the stored numbers are older than
PORTAL_STATS_MAX_AGE_SECONDS (no worker or beat running, an emptied cache);
the numbers always carry the moment they were computed (`computed_at`, the
end of their window), which the pages show. Computing them never counts the
whole library either: window counts and the chart read index ranges of the
last days, and the totals come from counters PostgreSQL keeps (migration
0004), so even that request stays fast on a large library (bench/portal.py
measures both). On PostgreSQL all of it but the finished chart days (cached)
is one statement (`current_numbers`: one round trip instead of twelve, one
snapshot, no ORM compiling); the functions below stay the definitions, used for past windows, on
SQLite and by the tests that hold the statement to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import NamedTuple

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from digests.models import GuidedReading
from digests.selectors import done_reading_count_sql, done_readings_by_model_sql, readings_by_model
from digests.selectors import done_readings as readings_done_between
from harvest.completeness import announcement_due, next_expected_announcement
from harvest.models import Announcement, CommunityPick, HarvestRun, Paper, Source, Version
from portal.stats.chart import DayPoint, daily_chart, day_start
from portal.stats.windows import Window, current_window, display_zone

CACHE_KEY = "portal:overview:v2"
# How long the cache keeps stored numbers at all; whether a request may still
# use them is decided by their age (settings.PORTAL_STATS_MAX_AGE_SECONDS).
CACHE_SECONDS = 15 * 60
TOTALS_FOLD_ROWS = 200
# arXiv's own sources: OAI-PMH, the announcement feed and the API.
ARXIV_SLUGS = ("arxiv", "arxiv_rss", "arxiv_api")
_COMPLETED = (HarvestRun.Status.OK, HarvestRun.Status.EMPTY)


@dataclass(slots=True)
class WindowCounts:
    window: Window
    new_papers: int = 0
    new_ai: int = 0
    revisions: int = 0
    new_readings: int = 0
    # {"provider", "model", "readings"} per provider and model of the new readings, most first.
    reading_models: list[dict] = field(default_factory=list)


@dataclass(slots=True)
class Freshness:
    last_arxiv_scan: datetime | None = None  # finished_at of the latest completed run of any arXiv source
    last_ingest: datetime | None = None  # latest Paper.included_at or Version.discovered_at
    last_check: datetime | None = None  # finished_at of the latest completed run of any source
    last_new_version: datetime | None = None  # latest revision found (a version of a known paper)
    newest_version_date: datetime | None = None  # max Paper.updated
    scan_round_start: datetime | None = None  # started_at of the latest run of any arXiv source
    last_announcement: date | None = None  # the newest announcement day the feed recorded
    next_announcement: datetime | None = None  # when arXiv's next announcement is due (UTC)
    # Whether an announcement was due inside the window: without one, +0 new
    # papers is the calendar (a Saturday), not a failure.
    announcement_in_window: bool = True


@dataclass(slots=True)
class Totals:
    papers: int = 0
    ai_related: int = 0
    with_revisions: int = 0
    hf_discoveries: int = 0


@dataclass(slots=True)
class OverviewStats:
    counts: WindowCounts
    freshness: Freshness
    totals: Totals
    failing_sources: list[str] = field(default_factory=list)
    chart: list[DayPoint] = field(default_factory=list)
    computed_at: datetime | None = None

    @property
    def window(self) -> Window:
        return self.counts.window

    @property
    def has_failures(self) -> bool:
        return bool(self.failing_sources)


def window_counts(window: Window, *, current: bool = False) -> WindowCounts:
    """The four numbers of a window (three queries). `current`: the window
    ends now, so few papers were included since it began (see below)."""
    papers = Paper.objects.filter(included_at__gte=window.start, included_at__lte=window.end).aggregate(
        n=Count("id"), ai=Count("id", filter=Q(ai_related=True))
    )
    if current:
        # revision_versions(window), counted as "not of a paper included since
        # the window began" (included_at is never null): PostgreSQL then hashes
        # the day's few hundred new papers instead of probing the paper of
        # every version found in the window. Not for any past window: one that holds the bootstrap
        # import would hash the whole library.
        included_since_start = Paper.objects.filter(pk=OuterRef("paper_id"), included_at__gte=window.start)
        revisions = (
            Version.objects.filter(discovered_at__gte=window.start, discovered_at__lte=window.end)
            .exclude(Exists(included_since_start))
            .count()
        )
    else:
        revisions = revision_versions(window).count()
    readings = done_readings(window).aggregate(n=Count("version_id", distinct=True))["n"]
    return WindowCounts(
        window=window,
        new_papers=papers["n"],
        new_ai=papers["ai"],
        revisions=revisions,
        new_readings=readings,
        reading_models=readings_by_model(start=window.start, end=window.end),
    )


def revision_versions(window: Window) -> QuerySet[Version]:
    """Versions found in the window of papers that were in the library before it began."""
    return Version.objects.filter(
        discovered_at__gte=window.start, discovered_at__lte=window.end, paper__included_at__lt=window.start
    )


def done_readings(window: Window) -> QuerySet[GuidedReading]:
    return readings_done_between(start=window.start, end=window.end)


def announcement_times(window: Window) -> dict:
    """arXiv's next announcement after the window and whether one was due in it (the calendar, no query)."""
    return {
        "next_announcement": next_expected_announcement(after=window.end),
        "announcement_in_window": announcement_due(start=window.start, end=window.end),
    }


def freshness(window: Window) -> Freshness:
    runs = HarvestRun.objects.aggregate(
        last_arxiv_scan=Max("finished_at", filter=Q(source__slug__in=ARXIV_SLUGS, status__in=_COMPLETED)),
        scan_round_start=Max("started_at", filter=Q(source__slug__in=ARXIV_SLUGS)),
        last_check=Max("finished_at", filter=Q(status__in=_COMPLETED)),
    )
    papers = Paper.objects.aggregate(included=Max("included_at"), updated=Max("updated"))
    discovered = Version.objects.aggregate(latest=Max("discovered_at"))["latest"]
    last_revision = (
        Version.objects.filter(paper__included_at__lt=F("discovered_at"))
        .order_by("-discovered_at")
        .values_list("discovered_at", flat=True)
        .first()
    )
    ingests = [moment for moment in (papers["included"], discovered) if moment is not None]
    return Freshness(
        last_arxiv_scan=runs["last_arxiv_scan"],
        last_ingest=max(ingests) if ingests else None,
        last_check=runs["last_check"],
        last_new_version=last_revision,
        newest_version_date=papers["updated"],
        scan_round_start=runs["scan_round_start"],
        last_announcement=Announcement.objects.aggregate(day=Max("announced_on"))["day"],
        **announcement_times(window),
    )


def totals() -> Totals:
    papers = _paper_totals()
    picks = CommunityPick.objects.aggregate(n=Count("paper_id", distinct=True))["n"]
    return Totals(papers=papers["n"], ai_related=papers["ai"], with_revisions=papers["revised"], hf_discoveries=picks)


def _paper_totals() -> dict[str, int]:
    """Papers, AI-related and revised papers. On PostgreSQL the sums of the
    differences its triggers record (migration 0004), folded into one row once
    they pile up; elsewhere a count of the table."""
    if connection.vendor != "postgresql":
        return Paper.objects.aggregate(
            n=Count("id"),
            ai=Count("id", filter=Q(ai_related=True)),
            revised=Count("id", filter=Q(version_count__gt=1)),
        )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(papers), 0), coalesce(sum(ai_related), 0), coalesce(sum(revised), 0), count(*) "
            "FROM harvest_paper_totals"
        )
        papers, ai, revised, rows = cursor.fetchone()
    _fold_paper_totals(rows)
    return {"n": int(papers), "ai": int(ai), "revised": int(revised)}


def _fold_paper_totals(rows: int) -> None:
    """Fold the trigger rows of harvest_paper_totals into one once there are
    more than TOTALS_FOLD_ROWS of them (PostgreSQL)."""
    if rows <= TOTALS_FOLD_ROWS:
        return
    # Rows committed meanwhile are not in this statement's snapshot, so they
    # are neither deleted nor summed: nothing is lost or counted twice.
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH folded AS (DELETE FROM harvest_paper_totals RETURNING papers, ai_related, revised) "
            "INSERT INTO harvest_paper_totals (papers, ai_related, revised) "
            "SELECT coalesce(sum(papers), 0), coalesce(sum(ai_related), 0), coalesce(sum(revised), 0) FROM folded"
        )


def failing_source_names() -> list[str]:
    """Enabled sources whose latest check (latest HarvestRun by start) failed."""
    latest_status = HarvestRun.objects.filter(source=OuterRef("pk")).order_by("-started_at", "-id").values("status")[:1]
    return list(
        Source.objects.filter(enabled=True)
        .annotate(latest_status=Subquery(latest_status))
        .filter(latest_status=HarvestRun.Status.FAILED)
        .order_by("name")
        .values_list("name", flat=True)
    )


class CurrentNumbers(NamedTuple):
    """Everything the overview counts for the window ending now, but the chart's finished days."""

    counts: WindowCounts
    freshness: Freshness
    totals: Totals
    failing_sources: list[str]
    today: DayPoint | None  # today's chart point, when counted with the rest


# The overview of the current window in one PostgreSQL statement, each part
# the definition of the function named beside it (the tests hold the two to
# the same numbers). Papers included and versions found since the window (or
# the Beijing day, were it longer) began are read once, through
# paper_included_idx and version_discovered_cover_idx: the window's new papers and
# today's come from the first, the window's revisions and today's from the
# second, a version whose paper is not among those recent papers being one of
# a paper included before. The latest times are one index probe each (the
# arXiv sources' ids looked up first: their last completed check walks
# harvestrun_finished_idx down to the first of theirs, their last start is a
# probe of harvestrun_source_started_idx per source; `source_id IN` or a join
# scanned every run). The last
# revision walks versions from the newest, looking up each one's paper by a
# subquery rather than a join: planning the join probed both ends of two
# indexes, its planning far longer than the answer.
_CURRENT_SQL = """
WITH recent_papers AS (
    SELECT id, included_at, ai_related FROM harvest_paper WHERE included_at >= %(since)s
), recent_versions AS (
    SELECT v.discovered_at, p.included_at AS paper_included_at
    FROM harvest_version v LEFT JOIN recent_papers p ON p.id = v.paper_id
    WHERE v.discovered_at >= %(since)s AND v.discovered_at <= %(end)s
), papers AS (
    SELECT count(*) FILTER (WHERE included_at >= %(start)s) AS in_window,
           count(*) FILTER (WHERE included_at >= %(start)s AND ai_related) AS ai_in_window,
           count(*) FILTER (WHERE included_at >= %(today)s) AS today
    FROM recent_papers WHERE included_at <= %(end)s
), revisions AS (
    SELECT count(*) FILTER (
               WHERE discovered_at >= %(start)s AND (paper_included_at IS NULL OR paper_included_at < %(start)s)
           ) AS in_window,
           count(*) FILTER (
               WHERE discovered_at >= %(today)s AND (paper_included_at IS NULL OR paper_included_at < %(today)s)
           ) AS today
    FROM recent_versions
)
SELECT
    papers.in_window, papers.ai_in_window, revisions.in_window,  -- window_counts()
    {readings},  -- digests.selectors.done_readings()
    (SELECT finished_at FROM harvest_harvestrun  -- freshness()
     WHERE finished_at IS NOT NULL AND status IN (%(ok)s, %(empty)s)
       AND source_id = ANY(ARRAY(SELECT id FROM harvest_source WHERE slug = ANY(%(arxiv)s)))
     ORDER BY finished_at DESC LIMIT 1),
    (SELECT max((SELECT max(r.started_at) FROM harvest_harvestrun r WHERE r.source_id = s.id))
     FROM harvest_source s WHERE s.slug = ANY(%(arxiv)s)),
    (SELECT max(finished_at) FROM harvest_harvestrun WHERE status IN (%(ok)s, %(empty)s)),
    (SELECT max(included_at) FROM harvest_paper),
    (SELECT max(discovered_at) FROM harvest_version),
    (SELECT max(updated) FROM harvest_paper),
    (SELECT v.discovered_at FROM harvest_version v
     WHERE (SELECT p.included_at FROM harvest_paper p WHERE p.id = v.paper_id) < v.discovered_at
     ORDER BY v.discovered_at DESC LIMIT 1),
    totals.papers, totals.ai_related, totals.revised, totals.row_count,  -- totals()
    (SELECT count(DISTINCT paper_id) FROM harvest_communitypick),
    (SELECT array_agg(s.name ORDER BY s.name) FROM harvest_source s  -- failing_source_names()
     WHERE s.enabled AND (SELECT r.status FROM harvest_harvestrun r WHERE r.source_id = s.id
                          ORDER BY r.started_at DESC, r.id DESC LIMIT 1) = %(failed)s),
    papers.today, revisions.today,  -- daily_chart(), today
    (SELECT max(announced_on) FROM harvest_announcement),  -- freshness()
    {reading_models}  -- digests.selectors.readings_by_model()
FROM papers, revisions, (
    SELECT coalesce(sum(papers), 0) AS papers, coalesce(sum(ai_related), 0) AS ai_related,
           coalesce(sum(revised), 0) AS revised, count(*) AS row_count
    FROM harvest_paper_totals
) totals
"""
_READINGS_SQL, _READINGS_PARAMS = done_reading_count_sql()
_MODELS_SQL, _MODELS_PARAMS = done_readings_by_model_sql()
_CURRENT_SQL = _CURRENT_SQL.replace("{readings}", _READINGS_SQL).replace("{reading_models}", _MODELS_SQL)


def current_numbers(window: Window) -> CurrentNumbers:
    """The overview of `window`, which ends now: one statement on PostgreSQL
    (today's chart point included), the definitions' queries elsewhere."""
    if connection.vendor != "postgresql":
        return current_numbers_by_parts(window)
    today = window.end.astimezone(display_zone()).date()
    today_start = day_start(today)
    with connection.cursor() as cursor:
        cursor.execute(
            _CURRENT_SQL,
            {
                "since": min(window.start, today_start),
                "start": window.start,
                "end": window.end,
                "today": today_start,
                "arxiv": list(ARXIV_SLUGS),
                "ok": HarvestRun.Status.OK.value,
                "empty": HarvestRun.Status.EMPTY.value,
                "failed": HarvestRun.Status.FAILED.value,
                **_READINGS_PARAMS,
                **_MODELS_PARAMS,
            },
        )
        row = cursor.fetchone()
    new_papers, new_ai, revisions, readings = row[0:4]
    arxiv_scan, round_start, check, included, discovered, updated, last_revision = row[4:11]
    papers, ai_related, revised, total_rows, picks, failing, today_papers, today_revisions = row[11:19]
    last_announcement, reading_models = row[19], row[20]
    _fold_paper_totals(total_rows)
    ingests = [moment for moment in (included, discovered) if moment is not None]
    return CurrentNumbers(
        counts=WindowCounts(
            window=window,
            new_papers=new_papers,
            new_ai=new_ai,
            revisions=revisions,
            new_readings=readings,
            reading_models=list(reading_models or []),  # psycopg decodes the JSON array
        ),
        freshness=Freshness(
            last_arxiv_scan=arxiv_scan,
            last_ingest=max(ingests) if ingests else None,
            last_check=check,
            last_new_version=last_revision,
            newest_version_date=updated,
            scan_round_start=round_start,
            last_announcement=last_announcement,
            **announcement_times(window),
        ),
        totals=Totals(
            papers=int(papers), ai_related=int(ai_related), with_revisions=int(revised), hf_discoveries=picks
        ),
        failing_sources=failing or [],
        today=DayPoint(day=today, papers=today_papers, revisions=today_revisions),
    )


def current_numbers_by_parts(window: Window) -> CurrentNumbers:
    """The same numbers from the definitions, one query (or three) each; the
    chart then counts today itself."""
    return CurrentNumbers(
        counts=window_counts(window, current=True),
        freshness=freshness(window),
        totals=totals(),
        failing_sources=failing_source_names(),
        today=None,
    )


def overview_stats(
    *, now: datetime | None = None, chart_days: int = 28, cache_past_days: bool = False
) -> OverviewStats:
    """Whole seconds, so that a briefing link (`?end=`, to the second) selects
    exactly the window these numbers count."""
    now = (now or timezone.now()).replace(microsecond=0)
    current = current_numbers(current_window(now))
    return OverviewStats(
        counts=current.counts,
        freshness=current.freshness,
        totals=current.totals,
        failing_sources=current.failing_sources,
        chart=daily_chart(now=now, days=chart_days, cache_past_days=cache_past_days, today_point=current.today),
        computed_at=now,
    )


def refresh_overview_stats(*, now: datetime | None = None) -> OverviewStats:
    """Compute the numbers and store them for the pages (the task's work)."""
    stats = overview_stats(now=now, cache_past_days=True)
    cache.set(CACHE_KEY, stats, CACHE_SECONDS)
    return stats


def overview_stats_cached(*, now: datetime | None = None) -> OverviewStats:
    """The stored overview numbers; computed here only when none are stored or
    they are older than settings.PORTAL_STATS_MAX_AGE_SECONDS (the task that
    refreshes them every minute is not running)."""
    stats = cache.get(CACHE_KEY)
    now = now or timezone.now()
    if stats is None or (now - stats.computed_at).total_seconds() > settings.PORTAL_STATS_MAX_AGE_SECONDS:
        stats = refresh_overview_stats(now=now)
    return stats
