"""/api/v1/stats/, /briefings/<kind>/ and /sources/: the overview's numbers and
the papers behind them, and the health of each source."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from harvest.completeness import next_expected_announcement
from harvest.models import HarvestRun, Paper, Version
from harvest.source_records import PaperRecord
from harvest.source_rows import configured_slugs
from harvest.sources.arxiv_rss import ARXIV_ZONE
from portal.stats.windows import display_zone
from tests import factories
from tests.factories import pick, reading, run, source, store

# Calendar: the windows, the next runs and the announcement days are reckoned from now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]

V1 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
TINY = timedelta(microseconds=1)


def record(arxiv_id: str, *, first: datetime = V1, **fields) -> PaperRecord:
    """A paper about sparse attention (the API tests search for it), v1 at `first`."""
    return factories.record(
        arxiv_id, abstract="We study sparse attention over long documents.", first_submitted=first, **fields
    )


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


@pytest.fixture
def day():
    """Now-relative data: an old paper revised in the current window, two new
    papers (one AI-related), a reading written in the window, and runs."""
    now = timezone.now().replace(microsecond=0)
    store(record("2601.00001", title="Old paper", versions=1), at=now - timedelta(days=30))
    store(record("2601.00001", title="Old paper", versions=2), at=now - timedelta(hours=2))
    store(
        record("2611.00001", categories=["cs.CL"]),
        record("2611.00002", categories=["math.AG"]),
        at=now - timedelta(hours=1),
    )
    reading(
        Version.objects.get(paper__arxiv_id="2601.00001", number=2),
        written_at=now - timedelta(minutes=30),
        takeaway="A short takeaway.",
    )
    arxiv = source("arxiv", "arXiv OAI-PMH", checkpoint={"from": "2026-11-12"})
    hf = source("hf_daily", "Hugging Face Daily Papers")
    run(
        arxiv,
        started_at=now - timedelta(hours=3),
        finished_at=now - timedelta(hours=3, minutes=-3),
        seen=10,
        new_papers=2,
    )
    run(hf, started_at=now - timedelta(hours=2), status=HarvestRun.Status.FAILED, error="HTTP 503")
    pick(Paper.objects.get(arxiv_id="2611.00001"), hf)
    return now


def test_stats_give_the_window_counts_with_bounds_freshness_and_totals(client_api, day):
    body = client_api.get("/api/v1/stats/").json()
    assert body["counts"] == {"new_papers": 2, "new_ai": 1, "revisions": 1, "new_readings": 1}
    start, end = datetime.fromisoformat(body["window"]["start"]), datetime.fromisoformat(body["window"]["end"])
    assert end - start == timedelta(hours=24) and abs(end - day) < timedelta(minutes=1)
    assert body["window"]["end_param"] == end.astimezone(display_zone()).strftime("%Y-%m-%dT%H:%M:%S")
    assert body["totals"] == {"papers": 3, "ai_related": 2, "with_revisions": 1, "hf_discoveries": 1}
    freshness = body["freshness"]
    assert freshness["last_arxiv_scan"] == iso(day - timedelta(hours=3) + timedelta(minutes=3))
    assert freshness["scan_round_start"] == iso(day - timedelta(hours=3))
    assert freshness["last_ingest"] == iso(day - timedelta(hours=1))
    assert freshness["last_new_version"] == iso(day - timedelta(hours=2))
    assert body["failing_sources"] == ["Hugging Face Daily Papers"]
    assert {link["kind"]: link["count"] for link in body["briefings"]} == {
        "new": 2,
        "ai": 1,
        "revisions": 1,
        "readings": 1,
    }
    assert len(body["daily"]) == 28


def test_stats_of_a_past_window(client_api, day):
    end = (day - timedelta(days=20)).astimezone(display_zone()).strftime("%Y-%m-%dT%H:%M:%S")
    body = client_api.get(f"/api/v1/stats/?end={end}").json()
    assert body["counts"] == {"new_papers": 0, "new_ai": 0, "revisions": 0, "new_readings": 0}
    assert body["window"]["end_param"] == end
    assert all(link["url"].endswith(f"?end={end}") for link in body["briefings"])
    old = (day - timedelta(days=30)).astimezone(display_zone()).date().isoformat()
    assert client_api.get(f"/api/v1/stats/?end={old}").json()["counts"]["new_papers"] == 1


@pytest.mark.parametrize("end", ["yesterday", "2999-01-01", "1980-01-01T00:00"])
def test_a_bad_window_end_is_a_400_naming_end(client_api, db, end):
    response = client_api.get(f"/api/v1/stats/?end={end}")
    assert response.status_code == 400 and "end" in response.json()["errors"]
    assert client_api.get(f"/api/v1/briefings/new/?end={end}").status_code == 400


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("new", {"2611.00001", "2611.00002"}),
        ("ai", {"2611.00001"}),
        ("revisions", {"2601.00001"}),
        ("readings", {"2601.00001"}),
    ],
)
def test_each_briefing_lists_exactly_the_papers_behind_its_number(client_api, day, kind, expected):
    body = client_api.get(f"/api/v1/briefings/{kind}/").json()
    assert {item["arxiv_id"] for item in body["results"]} == expected
    assert body["count"] == len(expected) and body["kind"] == kind and body["next"] is None


def test_briefings_say_what_the_window_brought(client_api, day):
    [revised] = client_api.get("/api/v1/briefings/revisions/").json()["results"]
    assert revised["window_versions"] == [2]
    [read] = client_api.get("/api/v1/briefings/readings/").json()["results"]
    assert [(r["version"], r["content"]["en"]["takeaway"]) for r in read["window_readings"]] == [
        (2, "A short takeaway.")
    ]


def test_a_briefing_pages_with_a_cursor(client_api, day):
    first = client_api.get("/api/v1/briefings/new/?page_size=1").json()
    second = client_api.get(first["next"]).json()
    assert first["count"] == second["count"] == 2
    assert {first["results"][0]["arxiv_id"], second["results"][0]["arxiv_id"]} == {"2611.00001", "2611.00002"}
    assert second["next"] is None


def test_a_past_briefing_window(client_api, day):
    end = (day - timedelta(days=30)).astimezone(display_zone()).date().isoformat()
    body = client_api.get(f"/api/v1/briefings/new/?end={end}").json()
    assert [item["arxiv_id"] for item in body["results"]] == ["2601.00001"]


def test_an_unknown_briefing_is_a_404_naming_kind(client_api, db):
    response = client_api.get("/api/v1/briefings/popular/")
    assert response.status_code == 404 and "kind" in response.json()["errors"]


def test_sources_show_progress_and_health(client_api, day, settings):
    settings.ANTHROPIC_API_KEY = ""
    body = client_api.get("/api/v1/sources/").json()
    by_slug = {item["slug"]: item for item in body["sources"]}
    arxiv, hf = by_slug["arxiv"], by_slug["hf_daily"]
    evening = settings.ZONED_HARVEST_SCHEDULES["harvest-arxiv-after-announcement"][1]
    assert arxiv["enabled"] and arxiv["schedule"] == (
        f"{settings.HARVEST_SCHEDULES['arxiv']} (UTC); {evening.expressions[0]} (America/New_York)"
    )
    assert arxiv["schedules"] == [
        {"cron": settings.HARVEST_SCHEDULES["arxiv"], "zone": "UTC"},
        {"cron": evening.expressions[0], "zone": "America/New_York"},
    ]
    assert arxiv["last_run"]["status"] == "ok" and arxiv["last_run"]["seen"] == 10
    assert arxiv["last_24h"] == {"runs": 1, "failed": 0, "seen": 10, "new_papers": 2, "new_versions": 0}
    assert arxiv["next_run"] is not None and arxiv["checkpoint"] == {"from": "2026-11-12"}
    assert arxiv["failing"] is False
    # What stopped it, for anyone; the exception text for staff alone.
    assert hf["failing"] is True and hf["last_run"]["problem"] == "http" and hf["last_run"]["problem_status"] == 503
    assert hf["last_run"]["error"] == "" and arxiv["last_run"]["problem"] == ""
    staff = User.objects.create_user("ops", password="x", is_staff=True)
    client_api.force_authenticate(staff)
    staff_view = {item["slug"]: item for item in client_api.get("/api/v1/sources/").json()["sources"]}
    assert staff_view["hf_daily"]["last_run"]["error"] == "HTTP 503"
    client_api.force_authenticate(None)
    assert body["any_failing"] is True
    assert body["guided_readings"]["configured"] is False and "ANTHROPIC_API_KEY" in body["guided_readings"]["reason"]


def test_a_disabled_failing_source_is_not_failing(client_api, db):
    src = source("hf_daily", "Hugging Face Daily Papers", enabled=False)
    run(src, started_at=timezone.now() - timedelta(hours=1), status=HarvestRun.Status.FAILED, error="boom")
    body = client_api.get("/api/v1/sources/").json()
    by_slug = {item["slug"]: item for item in body["sources"]}
    assert body["any_failing"] is False and by_slug["hf_daily"]["next_run"] is None


def test_every_configured_source_is_listed_before_it_has_a_row_or_a_run(client_api, db, settings):
    body = client_api.get("/api/v1/sources/").json()
    by_slug = {item["slug"]: item for item in body["sources"]}
    assert set(by_slug) == {"arxiv", "arxiv_rss", "hf_daily"} == set(configured_slugs())
    feed = by_slug["arxiv_rss"]
    assert feed["enabled"] and feed["last_run"] is None and feed["name"] == "arXiv announcements"
    polls = settings.ZONED_HARVEST_SCHEDULES["harvest-arxiv_rss"][1]
    assert [item["cron"] for item in feed["schedules"]] == list(polls.expressions)
    assert {item["zone"] for item in feed["schedules"]} == {"America/New_York"}
    assert datetime.fromisoformat(feed["next_run"]) == polls.next_run(timezone.now())
    assert body["completeness"] == []


def test_sources_carry_the_completeness_of_each_announcement_day(client_api, db):
    today = timezone.now().astimezone(ARXIV_ZONE).date()
    store(record("2611.00001"), record("2611.00002", versions=1), at=timezone.now())
    factories.announcement(today, [("2611.00001", 1), ("2611.00002", 2), ("2611.00009", 1)])
    factories.announcement(today - timedelta(days=1), [("2611.00001", 1)])
    factories.announcement(today - timedelta(days=14), [("2611.00009", 1)])  # older than the 14 days

    days = client_api.get("/api/v1/sources/").json()["completeness"]

    assert days == [
        {
            "day": today.isoformat(),
            "listed": 3,
            "held": 1,
            "missing": ["2611.00009"],
            "behind": [{"arxiv_id": "2611.00002", "listed_version": 2, "held_version": 1}],
            "complete": False,
        },
        {
            "day": (today - timedelta(days=1)).isoformat(),
            "listed": 1,
            "held": 1,
            "missing": [],
            "behind": [],
            "complete": True,
        },
    ]


def test_stats_carry_the_announcement_freshness(client_api, day):
    feed = source("arxiv_rss", "arXiv announcements")
    run(feed, started_at=day - timedelta(minutes=10), finished_at=day - timedelta(minutes=9), status="empty")
    factories.announcement(date(2026, 11, 12), [("2611.00001", 1)])

    body = client_api.get("/api/v1/stats/").json()
    freshness = body["freshness"]
    start, end = (datetime.fromisoformat(body["window"][edge]) for edge in ("start", "end"))

    assert freshness["last_arxiv_scan"] == iso(day - timedelta(minutes=9))  # the feed's check
    assert freshness["last_announcement"] == "2026-11-12"
    assert freshness["next_announcement"] == iso(next_expected_announcement(after=end))
    assert freshness["announcement_in_window"] is (next_expected_announcement(after=start - TINY) <= end)


@pytest.mark.parametrize(("end", "due"), [("2026-11-14T10:00:00", False), ("2026-11-17T10:00:00", True)])
def test_a_past_window_says_whether_it_held_an_announcement(client_api, db, end, due):
    # Saturday 10:00 Beijing: Thursday's announcement fell before; Tuesday 10:00: Monday's fell inside.
    body = client_api.get("/api/v1/stats/", {"end": end}).json()
    assert body["window"]["end_param"] == end and body["freshness"]["announcement_in_window"] is due
