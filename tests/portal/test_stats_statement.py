"""On PostgreSQL the overview of the current window is one statement
(overview.current_numbers); it must give exactly the numbers of the
definitions (overview.current_numbers_by_parts and the chart's own count of
today), edges included, in Beijing time and in a zone whose day can last
25 hours."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection

from digests.models import GuidedReading
from harvest.models import HarvestRun
from portal.stats.chart import daily_chart, day_start
from portal.stats.overview import current_numbers, current_numbers_by_parts, refresh_overview_stats
from portal.stats.windows import current_window, display_zone
from tests import factories as f

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the one statement is PostgreSQL's"),
]

TINY = timedelta(microseconds=1)


def library_around(now: datetime) -> None:
    """Papers, versions, readings, runs and picks on both sides of every edge
    the numbers have: the window's start and end, and the start of today."""
    start = now - timedelta(hours=24)
    today = day_start(now.astimezone(display_zone()).date())
    long_ago = start - timedelta(days=5)
    # New papers at the window's edges, inside and just outside.
    f.store(f.record("2611.00001", categories=["cs.AI"]), at=start)
    f.store(f.record("2611.00002"), at=now)
    f.store(f.record("2611.00003", categories=["cs.CL"]), at=start - TINY)
    f.store(f.record("2611.00004"), at=now + TINY)
    # Revisions of papers included before the window, at the edges.
    f.store(f.record("2611.00010"), at=long_ago)
    f.store(f.record("2611.00010", versions=3), at=start)  # v2 and v3, inside
    f.store(f.record("2611.00011"), at=long_ago)
    f.store(f.record("2611.00011", versions=2), at=start - TINY)  # outside
    f.store(f.record("2611.00012"), at=long_ago)
    f.store(f.record("2611.00012", versions=2), at=now + 2 * TINY)  # after the end: the last thing stored
    # A paper included at the start: its later version is part of a new paper.
    f.store(f.record("2611.00020"), at=start)
    f.store(f.record("2611.00020", versions=2), at=now)
    # Around the start of today: included just before, revised just after
    # (a revision for the chart's today, not for the window), and a paper
    # included exactly at the start of today, revised later the same day.
    f.store(f.record("2611.00030", categories=["cs.LG"]), at=max(today - TINY, start))
    f.store(f.record("2611.00030", versions=2), at=max(today, start) + TINY)
    f.store(f.record("2611.00031"), at=max(today, start))
    f.store(f.record("2611.00031", versions=2), at=now)
    f.store(f.record("2611.00032"), at=long_ago)
    f.store(f.record("2611.00032", versions=2), at=today)
    # Readings: done ones at the edges, two done for one version (two prompts), others not done.
    f.reading(f.version("2611.00010", 2), written_at=start)
    f.reading(f.version("2611.00010", 3), written_at=now)
    f.reading(f.version("2611.00011", 2), written_at=start - TINY)
    again = f.reading(f.version("2611.00020", 2), written_at=now)
    GuidedReading.objects.filter(pk=again.pk).update(prompt_version="old")  # an earlier prompt's reading
    f.reading(f.version("2611.00020", 2), written_at=now - timedelta(hours=1))
    f.reading(f.version("2611.00002", 1), written_at=None, status="pending")
    f.reading(f.version("2611.00031", 1), written_at=now, status="failed")  # not done, whatever its time
    # Runs: arXiv completed, then failed; a second source completed later; a
    # disabled source failing; a source that recovered.
    arxiv = f.source("arxiv", name="arXiv")
    hf = f.source("hf_daily", name="HF daily")
    off = f.source("rss", name="RSS", enabled=False)
    f.run(arxiv, started_at=now - timedelta(hours=5), status=HarvestRun.Status.OK)
    f.run(arxiv, started_at=now - timedelta(hours=3), status=HarvestRun.Status.EMPTY)
    f.run(arxiv, started_at=now - timedelta(hours=1), status=HarvestRun.Status.FAILED, error="HTTP 503")
    f.run(hf, started_at=now - timedelta(hours=2), status=HarvestRun.Status.FAILED, error="timeout")
    f.run(hf, started_at=now - timedelta(minutes=40), status=HarvestRun.Status.OK)
    f.run(hf, started_at=now - timedelta(minutes=10), status=HarvestRun.Status.RUNNING)
    f.run(off, started_at=now - timedelta(hours=1), status=HarvestRun.Status.FAILED, error="gone")
    # The other arXiv sources: the feed's empty check ends last of arXiv's; the API's is still running.
    feed = f.source("arxiv_rss", name="arXiv announcements")
    f.run(feed, started_at=now - timedelta(minutes=50), status=HarvestRun.Status.EMPTY)
    f.run(f.source("arxiv_api", name="arXiv API"), started_at=now - timedelta(minutes=20), status="running")
    # Announcements of two feeds; the newest day is not the newest fetched.
    f.announcement(now.date() - timedelta(days=1), [("2611.00001", 1)], feed="cs")
    f.announcement(now.date() - timedelta(days=3), [("2611.00002", 1)], feed="cs.AI")
    # Picks: one paper from two sources, another from one.
    f.pick(f.paper("2611.00010"), hf)
    f.pick(f.paper("2611.00010"), off)
    f.pick(f.paper("2611.00001"), hf)


def assert_same_numbers(now: datetime) -> None:
    window = current_window(now)
    together = current_numbers(window)
    by_parts = current_numbers_by_parts(window)
    assert together.counts == by_parts.counts
    assert together.freshness == by_parts.freshness
    assert together.totals == by_parts.totals
    assert together.failing_sources == by_parts.failing_sources
    assert [together.today] == daily_chart(now=now, days=1)


# 2026-11-13 00:31 UTC is 08:31 in Beijing; 16:00 UTC is a Beijing midnight.
@pytest.mark.parametrize(
    "now",
    [
        datetime(2026, 11, 13, 0, 31, tzinfo=UTC),
        datetime(2026, 11, 12, 16, 0, tzinfo=UTC),  # today began just now
        datetime(2026, 11, 12, 15, 59, 59, tzinfo=UTC),  # the last second of a day
    ],
    ids=["morning", "midnight", "before-midnight"],
)
def test_the_one_statement_gives_the_numbers_of_the_definitions(now):
    library_around(now)
    assert_same_numbers(now)
    numbers = current_numbers(current_window(now))
    assert numbers.counts.revisions and numbers.counts.new_readings and numbers.today.revisions  # not all zero
    assert numbers.freshness.last_arxiv_scan == now - timedelta(minutes=48)  # the feed's check
    assert numbers.freshness.scan_round_start == now - timedelta(minutes=20)  # the API's, running
    assert numbers.freshness.last_announcement == now.date() - timedelta(days=1)
    # Later and earlier windows over the same library.
    for moved in (timedelta(hours=6), timedelta(days=1), -timedelta(hours=12)):
        assert_same_numbers(now + moved)


def test_in_a_zone_whose_day_lasts_25_hours_today_may_begin_before_the_window(settings):
    settings.DISPLAY_TIME_ZONE = "America/New_York"
    # 2026-11-01 ends summer time in New York: 23:30 EST is 04:30 UTC the next
    # day, 24 hours after 00:30 EDT, and that day began at 04:00 UTC.
    now = datetime(2026, 11, 2, 4, 30, tzinfo=UTC)
    assert day_start(now.astimezone(ZoneInfo("America/New_York")).date()) < current_window(now).start
    library_around(now)
    assert_same_numbers(now)


def test_the_last_revision_found_is_not_the_last_new_paper():
    f.store(f.record("2611.00001"), at=f.NOW - timedelta(days=3))
    f.store(f.record("2611.00001", versions=2), at=f.NOW - timedelta(hours=2))
    f.store(f.record("2611.00002"), at=f.NOW - timedelta(hours=1))
    assert current_numbers(current_window(f.NOW)).freshness.last_new_version == f.NOW - timedelta(hours=2)
    assert_same_numbers(f.NOW)


def test_the_numbers_of_an_empty_library():
    assert_same_numbers(f.NOW)
    assert current_numbers(current_window(f.NOW)).failing_sources == []


def test_a_recompute_is_one_query_once_the_finished_chart_days_are_stored(django_assert_num_queries):
    now = datetime(2026, 11, 13, 0, 31, tzinfo=UTC)
    library_around(now)
    first = refresh_overview_stats(now=now)  # counts and stores the finished days too
    with django_assert_num_queries(1):
        again = refresh_overview_stats(now=now)
    assert again == first
