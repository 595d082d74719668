"""The overview's definitions, on a fixed clock, edges included."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.core.cache import cache
from django.template.loader import render_to_string

from harvest.models import HarvestRun
from portal.stats import overview_stats, overview_stats_cached
from portal.stats.overview import CACHE_KEY, failing_source_names, window_counts
from portal.stats.windows import WindowError, current_window, parse_window_end
from tests import factories as f

pytestmark = pytest.mark.django_db

NOW = f.NOW
START = NOW - timedelta(hours=24)
TINY = timedelta(microseconds=1)
# The current window's revisions are counted by a cheaper query (overview.window_counts); same definitions.
CURRENT_OR_ANY = pytest.mark.parametrize("current", [False, True], ids=["any-window", "current-window"])


def test_window_is_the_24_hours_ending_now():
    window = current_window(NOW)
    assert (window.start, window.end) == (START, NOW)
    assert window.end_param == "2026-11-13T08:31:00"


@CURRENT_OR_ANY
def test_papers_exactly_at_both_edges_are_new_and_just_outside_are_not(current):
    f.store(f.record("2611.00001"), at=START)
    f.store(f.record("2611.00002"), at=NOW)
    f.store(f.record("2611.00003"), at=START - TINY)
    f.store(f.record("2611.00004"), at=NOW + TINY)
    counts = window_counts(current_window(NOW), current=current)
    assert counts.new_papers == 2


@CURRENT_OR_ANY
def test_a_paper_included_long_after_its_v1_date_counts_as_new(current):
    f.store(
        f.record("1901.00001", first_submitted=datetime(2019, 1, 2, tzinfo=UTC), versions=2),
        at=NOW - timedelta(hours=3),
    )
    counts = window_counts(current_window(NOW), current=current)
    assert (counts.new_papers, counts.revisions) == (1, 0)


@CURRENT_OR_ANY
def test_a_new_version_of_a_paper_included_in_the_same_window_is_new_not_a_revision(current):
    f.store(f.record("2611.00010", versions=1), at=NOW - timedelta(hours=20))
    f.store(f.record("2611.00010", versions=2), at=NOW - timedelta(hours=2))
    counts = window_counts(current_window(NOW), current=current)
    assert (counts.new_papers, counts.revisions) == (1, 0)


@CURRENT_OR_ANY
def test_new_versions_of_papers_already_in_the_library_are_revisions_counted_per_version(current):
    f.store(f.record("2611.00020", versions=1), at=START - timedelta(days=3))
    f.store(f.record("2611.00020", versions=3), at=NOW - timedelta(hours=1))  # v2 and v3 arrive
    f.store(f.record("2611.00021", versions=1), at=START - TINY)
    f.store(f.record("2611.00021", versions=2), at=START)  # at the start edge: inside
    f.store(f.record("2611.00022", versions=1), at=START - timedelta(days=1))
    f.store(f.record("2611.00022", versions=2), at=START - TINY)  # just before the window
    counts = window_counts(current_window(NOW), current=current)
    assert (counts.new_papers, counts.revisions) == (0, 3)


@CURRENT_OR_ANY
def test_a_paper_included_exactly_at_the_start_is_new_so_its_later_version_is_not_a_revision(current):
    f.store(f.record("2611.00030", versions=1), at=START)
    f.store(f.record("2611.00030", versions=2), at=NOW)
    counts = window_counts(current_window(NOW), current=current)
    assert (counts.new_papers, counts.revisions) == (1, 0)


@CURRENT_OR_ANY
def test_ai_related_is_the_subset_of_new_papers_in_ai_categories(current):
    f.store(f.record("2611.00040", categories=["cs.CL"]), at=NOW - timedelta(hours=1))
    f.store(f.record("2611.00041", categories=["math.CO", "stat.ML"]), at=NOW - timedelta(hours=1))
    f.store(f.record("2611.00042", categories=["cs.DS"]), at=NOW - timedelta(hours=1))
    f.store(f.record("2611.00043", categories=["cs.AI"]), at=START - timedelta(hours=1))
    counts = window_counts(current_window(NOW), current=current)
    assert (counts.new_papers, counts.new_ai) == (3, 2)


def test_new_guided_readings_are_done_readings_written_in_the_window():
    f.store(f.record("2611.00050", versions=2), at=START - timedelta(days=2))
    f.store(f.record("2611.00051"), at=NOW - timedelta(hours=5))
    f.reading(f.version("2611.00050", 1), written_at=START - TINY)
    f.reading(f.version("2611.00050", 2), written_at=START)
    f.reading(f.version("2611.00051", 1), written_at=NOW)
    f.store(f.record("2611.00052"), at=NOW - timedelta(hours=5))
    f.reading(f.version("2611.00052", 1), written_at=None, status="pending")
    assert window_counts(current_window(NOW)).new_readings == 2


def test_new_guided_readings_name_their_provider_and_model_on_both_paths():
    f.store(f.record("2611.00060", versions=2), at=NOW - timedelta(hours=5))
    f.store(f.record("2611.00061"), at=NOW - timedelta(hours=5))
    f.reading(f.version("2611.00060", 1), written_at=NOW - timedelta(hours=1), provider="openai", model="deepseek-chat")
    f.reading(f.version("2611.00060", 2), written_at=NOW, provider="openai", model="deepseek-chat")
    f.reading(f.version("2611.00061", 1), written_at=NOW, provider="anthropic", model="claude-sonnet-4-6")
    f.store(f.record("2611.00062"), at=START - timedelta(hours=5))
    f.reading(f.version("2611.00062", 1), written_at=START - TINY, provider="anthropic", model="claude-haiku-4-5")
    expected = [
        {"provider": "openai", "model": "deepseek-chat", "readings": 2},
        {"provider": "anthropic", "model": "claude-sonnet-4-6", "readings": 1},
    ]
    assert window_counts(current_window(NOW)).reading_models == expected  # the definitions
    stats = overview_stats(now=NOW)  # PostgreSQL: the one statement
    assert stats.counts.reading_models == expected and stats.counts.new_readings == 3
    html = render_to_string("portal/_overview_numbers.html", {"stats": stats})
    assert "openai:deepseek-chat 2 · anthropic:claude-sonnet-4-6 1" in html


def test_freshness_times_come_from_runs_papers_and_versions():
    arxiv = f.source("arxiv")
    hf = f.source("hf_daily")
    f.run(arxiv, started_at=NOW - timedelta(hours=5), status=HarvestRun.Status.OK)
    f.run(arxiv, started_at=NOW - timedelta(hours=3), status=HarvestRun.Status.EMPTY)
    f.run(arxiv, started_at=NOW - timedelta(hours=1), status=HarvestRun.Status.FAILED, error="HTTP 503")
    f.run(hf, started_at=NOW - timedelta(minutes=40), status=HarvestRun.Status.OK)
    f.run(hf, started_at=NOW - timedelta(minutes=10), status=HarvestRun.Status.RUNNING)
    f.store(
        f.record("2611.00060", versions=1, first_submitted=datetime(2026, 11, 10, tzinfo=UTC)),
        at=NOW - timedelta(days=2),
    )
    f.store(
        f.record("2611.00060", versions=2, first_submitted=datetime(2026, 11, 10, tzinfo=UTC)),
        at=NOW - timedelta(hours=6),
    )
    f.store(f.record("2611.00061", first_submitted=datetime(2026, 11, 12, tzinfo=UTC)), at=NOW - timedelta(hours=4))

    fresh = overview_stats(now=NOW).freshness
    assert fresh.last_arxiv_scan == NOW - timedelta(hours=3) + timedelta(minutes=2)
    assert fresh.scan_round_start == NOW - timedelta(hours=1)
    assert fresh.last_check == NOW - timedelta(minutes=38)
    assert fresh.last_ingest == NOW - timedelta(hours=4)
    assert fresh.last_new_version == NOW - timedelta(hours=6)  # the v2 of a known paper, not the new paper
    assert fresh.newest_version_date == datetime(2026, 11, 17, tzinfo=UTC)  # v2 of 2611.00060, a week after v1


def test_the_latest_arxiv_scan_is_the_latest_completed_check_of_any_arxiv_source():
    f.run(f.source("arxiv"), started_at=NOW - timedelta(hours=5), status=HarvestRun.Status.OK)
    feed = f.source("arxiv_rss")
    f.run(feed, started_at=NOW - timedelta(minutes=30), status=HarvestRun.Status.EMPTY)
    f.run(feed, started_at=NOW - timedelta(minutes=5), status=HarvestRun.Status.FAILED, error="HTTP 503")
    f.run(f.source("arxiv_api"), started_at=NOW - timedelta(hours=2), status=HarvestRun.Status.OK)
    f.run(f.source("hf_daily"), started_at=NOW - timedelta(minutes=3), status=HarvestRun.Status.OK)

    fresh = overview_stats(now=NOW).freshness

    assert fresh.last_arxiv_scan == NOW - timedelta(minutes=28)  # the feed's empty check, not HF's later one
    assert fresh.scan_round_start == NOW - timedelta(minutes=5)
    assert fresh.last_check == NOW - timedelta(minutes=1)


def test_the_latest_announcement_day_and_the_next_one_expected():
    assert overview_stats(now=NOW).freshness.last_announcement is None
    f.announcement(date(2026, 11, 12), [("2611.00001", 1)], feed="cs")
    f.announcement(date(2026, 11, 11), [("2611.00001", 1)], feed="cs.AI")

    fresh = overview_stats(now=NOW).freshness

    assert fresh.last_announcement == date(2026, 11, 12)
    # NOW is Thursday 19:31 US Eastern: the next announcement is at 20:00 (01:00 UTC).
    assert fresh.next_announcement == datetime(2026, 11, 13, 1, 0, tzinfo=UTC)
    assert fresh.announcement_in_window  # Wednesday's, at 20:00 US Eastern


@pytest.mark.parametrize(
    ("now", "due"),
    [
        (datetime(2026, 11, 14, 2, 0, tzinfo=UTC), False),  # Saturday 10:00 Beijing: Thursday's fell before
        (datetime(2026, 11, 14, 23, 59, tzinfo=UTC), False),  # Sunday 07:59 Beijing
        (datetime(2026, 11, 16, 1, 0, tzinfo=UTC), True),  # Monday 09:00 Beijing: Sunday's, exactly at the end
        (datetime(2026, 11, 16, 0, 59, tzinfo=UTC), False),  # a minute earlier: not yet
        (datetime(2026, 11, 14, 1, 0, tzinfo=UTC), True),  # Saturday 09:00 Beijing: Thursday's, exactly at the start
        (datetime(2026, 11, 14, 1, 0, 1, tzinfo=UTC), False),  # a second later
    ],
)
def test_a_window_without_an_announcement_says_so(now, due):
    assert overview_stats(now=now).freshness.announcement_in_window is due


def test_holidays_are_skipped_by_the_next_expected_announcement(settings):
    settings.PAPERTRAIL_ARXIV_HOLIDAYS = frozenset({date(2026, 11, 12), date(2026, 11, 15)})
    fresh = overview_stats(now=NOW).freshness
    # Thursday 12 and Sunday 15 November are holidays: Monday 16 at 20:00 EST.
    assert fresh.next_announcement == datetime(2026, 11, 17, 1, 0, tzinfo=UTC)
    # Thursday 21:00 US Eastern: the window held only the holiday's evening.
    thursday_night = datetime(2026, 11, 13, 2, 0, tzinfo=UTC)
    assert overview_stats(now=thursday_night).freshness.announcement_in_window is False
    settings.PAPERTRAIL_ARXIV_HOLIDAYS = frozenset()
    assert overview_stats(now=thursday_night).freshness.announcement_in_window is True


def test_totals_count_the_library():
    hf = f.source("hf_daily")
    f.store(
        f.record("2611.00070", categories=["cs.LG"], versions=2),
        f.record("2611.00071", categories=["cs.DS"]),
        f.record("2611.00072", categories=["cs.CV"]),
        at=NOW - timedelta(days=3),
    )
    other = f.source("hf_weekly")
    f.pick(f.paper("2611.00070"), hf)
    f.pick(f.paper("2611.00070"), other)
    f.pick(f.paper("2611.00071"), hf)
    totals = overview_stats(now=NOW).totals
    assert (totals.papers, totals.ai_related, totals.with_revisions, totals.hf_discoveries) == (3, 2, 1, 2)


def test_banner_lists_enabled_sources_whose_latest_check_failed():
    arxiv, hf = f.source("arxiv", name="arXiv"), f.source("hf_daily", name="HF")
    off = f.source("rss", name="RSS", enabled=False)
    recovered = f.source("arxiv_api", name="arXiv API")
    f.run(arxiv, started_at=NOW - timedelta(hours=2), status="ok")
    f.run(arxiv, started_at=NOW - timedelta(hours=1), status="failed", error="HTTP 503")
    f.run(hf, started_at=NOW - timedelta(hours=1), status="empty")
    f.run(off, started_at=NOW - timedelta(hours=1), status="failed", error="gone")
    f.run(recovered, started_at=NOW - timedelta(hours=2), status="failed", error="timeout")
    f.run(recovered, started_at=NOW - timedelta(hours=1), status="ok")
    assert failing_source_names() == ["arXiv"]
    f.run(arxiv, started_at=NOW - timedelta(minutes=5), status="running")
    assert failing_source_names() == []


def test_daily_chart_counts_papers_and_revisions_per_beijing_day():
    # 2026-11-12 16:30 UTC is 2026-11-13 00:30 in Beijing: the last day.
    f.store(f.record("2611.00080"), at=datetime(2026, 11, 12, 16, 30, tzinfo=UTC))
    f.store(f.record("2611.00081"), at=datetime(2026, 11, 12, 15, 30, tzinfo=UTC))  # 23:30, the day before
    f.store(f.record("2611.00081", versions=2), at=datetime(2026, 11, 12, 16, 40, tzinfo=UTC))  # revision next day
    f.store(f.record("2611.00080", versions=2), at=datetime(2026, 11, 12, 17, 0, tzinfo=UTC))  # same day: not
    chart = overview_stats(now=NOW, chart_days=7).chart
    assert [p.day.isoformat() for p in chart][-2:] == ["2026-11-12", "2026-11-13"]
    assert (chart[-1].papers, chart[-1].revisions) == (1, 1)
    assert (chart[-2].papers, chart[-2].revisions) == (1, 0)
    assert len(chart) == 7


def test_cached_overview_counts_nothing_within_the_minute(django_assert_num_queries):
    f.store(f.record("2611.00090"), at=NOW - timedelta(minutes=5))
    first = overview_stats_cached()
    assert first.totals.papers == 1
    f.store(f.record("2611.00091"), at=NOW - timedelta(minutes=1))
    with django_assert_num_queries(0):
        again = overview_stats_cached()
    assert again.totals.papers == 1
    cache.delete(CACHE_KEY)  # what expiry after 60 s does
    assert overview_stats_cached().totals.papers == 2


def test_window_end_parameter_is_beijing_time_and_never_in_the_future():
    assert parse_window_end("2026-11-13T08:31", now=NOW) == NOW
    assert parse_window_end("2026-11-13 08:31:00", now=NOW) == NOW
    assert parse_window_end("2026-11-11", now=NOW) == datetime(2026, 11, 11, 16, 0, tzinfo=UTC)
    with pytest.raises(WindowError, match="在未来"):
        parse_window_end("2026-11-13T08:32", now=NOW)
    with pytest.raises(WindowError):
        parse_window_end("yesterday", now=NOW)
    with pytest.raises(WindowError):
        parse_window_end("1980-01-01", now=NOW)
