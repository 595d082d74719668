"""The 10-minute path: arXiv publishes its announcement feed at T (20:00 US
Eastern on an announcement day); the beat entry of the feed fires by T+5
minutes; the check it starts stores the papers; the overview numbers, the
library and the briefing show them, all within 10 minutes of T.

The clock is controlled where time is a schedule (beat's decisions, the
overview's refresh interval) and measured where it is work (the check, the
recomputation): each step adds its real duration to the controlled clock, so
a slow check or statement fails the test as it would miss the promise. From
the moment beat fires, the process's own clock is there too (time-machine),
so the check stores the papers and the pages read the days of T's evening,
whatever the date. The feed is the recorded one, served over HTTP by the
replay server.
"""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta

import pytest
from django.conf import settings
from django.core.cache import cache

from harvest.models import HarvestRun, Paper
from harvest.sources.arxiv_rss import ARXIV_ZONE
from harvest.tasks import run_source
from papertrail.schedules import ZonedCron
from portal.stats.overview import refresh_overview_stats
from portal.tasks import refresh_overview
from portal.views.briefings import BRIEFING_PAGE_SIZE
from tests.harvest import rss_feeds
from tests.harvest.arxiv_api_replay import serve_recorded
from tests.portal.test_library import ids_on
from tests.replay_server import Reply

pytestmark = [pytest.mark.django_db, pytest.mark.calendar]

# Monday 30 November 2026, 20:00 US Eastern: the feed of Tuesday 1 December appears.
T = datetime(2026, 11, 30, 20, 0, tzinfo=ARXIV_ZONE)
ANNOUNCED_ON = date(2026, 12, 1)
PROMISE = timedelta(minutes=10)
# Beat sleeps until the next entry is due, but never longer than this (Celery's default).
BEAT_MAX_LOOP_INTERVAL = 300


class Clock:
    """The controlled clock beat reads (ZonedCron's nowfun)."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, by: timedelta) -> None:
        self.moment += by


def timed(work) -> tuple[object, timedelta]:
    started = time.monotonic()
    result = work()
    return result, timedelta(seconds=time.monotonic() - started)


@pytest.fixture
def feed(settings, replay_server):
    """The recorded `stat` announcement feed, dated the announcement day of T."""
    settings.ARXIV_RSS_URL = f"{replay_server.url}/rss"
    settings.ARXIV_RSS_CATEGORIES = ["stat"]
    settings.ARXIV_API_URL = serve_recorded(replay_server)
    body = rss_feeds.feed(list(rss_feeds.items().values()), pub_date="Tue, 01 Dec 2026 00:00:00 -0500")
    replay_server.queue("/rss/stat", Reply(body=body, content_type="application/rss+xml"))
    cache.clear()
    return [arxiv_id for arxiv_id, _, _ in rss_feeds.listed()]


def beat_fires(entry: dict, clock: Clock, *, last_run_at: datetime) -> datetime:
    """Step the controlled clock as beat's loop does (sleep until the entry
    says it is due, at most BEAT_MAX_LOOP_INTERVAL) and return when it fires."""
    schedule: ZonedCron = entry["schedule"]
    ticking = ZonedCron(schedule.expressions, schedule.zone, nowfun=clock)
    for _ in range(100):
        due, wait = ticking.is_due(last_run_at)
        if due:
            return clock()
        clock.advance(timedelta(seconds=min(wait, BEAT_MAX_LOOP_INTERVAL)))
    raise AssertionError("the entry never became due")


def test_a_paper_announced_at_eight_pm_eastern_is_on_the_site_within_ten_minutes(client, feed, time_machine):
    entry = settings.CELERY_BEAT_SCHEDULE["harvest-arxiv_rss"]
    assert entry["task"] == "harvest.run_source" and entry["args"] == ["arxiv_rss"]
    # The hourly poll at 19:35 found the feed of the day before; beat then waits.
    clock = Clock(T - timedelta(minutes=25))
    last_poll = clock()

    fired = beat_fires(entry, clock, last_run_at=last_poll)
    assert T <= fired <= T + timedelta(minutes=5)
    # The sources page's announcement days are the 14 before today: today is T's.
    time_machine.move_to(fired, tick=True)

    # The worker runs the task beat queued (its expiry is longer than the wait for a free worker).
    assert entry["options"]["expires"] >= 60
    assert run_source.name == entry["task"]
    outcome, took = timed(lambda: run_source(*entry["args"]))
    clock.advance(took)
    run = HarvestRun.objects.get(source__slug="arxiv_rss")
    assert run.status == HarvestRun.Status.OK and "arxiv_rss run" in outcome
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == set(feed)

    # The overview's numbers are recomputed by their beat entry every
    # PORTAL_STATS_REFRESH_SECONDS, so at worst one whole interval after the
    # check ended: the recomputation (the task's work) is run for that moment.
    refresh = settings.CELERY_BEAT_SCHEDULE["portal-overview-stats"]
    assert refresh["task"] == refresh_overview.name and refresh["schedule"] == settings.PORTAL_STATS_REFRESH_SECONDS
    interval = timedelta(seconds=settings.PORTAL_STATS_REFRESH_SECONDS)
    clock.advance(interval)
    _, took = timed(lambda: refresh_overview_stats(now=run.finished_at + interval))
    clock.advance(took)

    overview = client.get("/").content.decode()
    assert f'data-stat="new_papers"><strong>+{len(feed)}</strong>' in overview
    assert '<dd data-fresh="last_announcement">2026-12-01</dd>' in overview
    library = client.get("/papers/?size=100")
    assert len(ids_on(library)) == 100 and set(ids_on(library)) <= set(feed)
    assert f'data-count="{len(feed)}"' in library.content.decode()
    briefing = client.get("/briefings/new/")
    assert set(ids_on(briefing)) <= set(feed) and len(ids_on(briefing)) == BRIEFING_PAGE_SIZE
    assert f'data-count="{len(feed)}"' in briefing.content.decode()
    # The announcement is recorded whole: nothing listed is missing or behind.
    sources = client.get("/sources/").content.decode()
    day = sources.split(f'data-day="{ANNOUNCED_ON:%Y-%m-%d}"', 1)[1].split("</tr>", 1)[0]
    assert f'data-label="已收录">{len(feed)}</td>' in day and "不完整" not in day

    assert clock() - T <= PROMISE, f"the path took {clock() - T}"
