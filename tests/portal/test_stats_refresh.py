"""The overview numbers are computed by a Celery task every minute and stored,
so page requests read them and never compute them; a request
computes them only when the stored numbers are too old or missing, and the
pages always show when the numbers were computed."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from portal.stats import overview_stats_cached
from portal.stats.overview import CACHE_KEY, refresh_overview_stats
from portal.stats.windows import display_zone
from portal.tasks import refresh_overview
from tests import factories as f

# Calendar: the numbers count the 24 hours before now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]


def total_on(page: str) -> int:
    return int(re.search(r'data-total="papers">([\d,]+)<', page).group(1).replace(",", ""))


def test_the_task_stores_the_numbers_that_pages_then_read_without_a_query(client, django_assert_num_queries):
    f.store(f.record("2611.00001"), at=timezone.now() - timedelta(hours=1))
    assert "overview numbers at" in refresh_overview()
    with django_assert_num_queries(0):
        page = client.get("/overview/numbers/").content.decode()
    assert total_on(page) == 1
    f.store(f.record("2611.00002"), at=timezone.now())
    assert total_on(client.get("/overview/numbers/").content.decode()) == 1  # until the next refresh
    refresh_overview()
    assert total_on(client.get("/overview/numbers/").content.decode()) == 2


def test_numbers_a_refresh_old_are_served_as_stored_and_say_when_they_were_computed(client):
    now = timezone.now().replace(microsecond=0)
    f.store(f.record("2611.00001"), at=now - timedelta(hours=1))
    computed = now - timedelta(seconds=settings.PORTAL_STATS_REFRESH_SECONDS)
    refresh_overview_stats(now=computed)
    f.store(f.record("2611.00002"), at=now)
    stats = overview_stats_cached()
    assert (stats.computed_at, stats.totals.papers) == (computed, 1)
    page = client.get("/").content.decode()
    # The window the numbers count ends when they were computed, and the page says so.
    window_line = re.search(r"<p data-window>.*?</p>", page).group(0)
    assert computed.astimezone(display_zone()).strftime("%Y-%m-%d %H:%M") in window_line
    api = client.get("/api/v1/stats/").json()
    assert api["computed_at"] == api["window"]["end"]
    assert api["totals"]["papers"] == 1


def test_a_request_computes_the_numbers_itself_when_the_stored_ones_are_too_old():
    now = timezone.now().replace(microsecond=0)
    f.store(f.record("2611.00001"), at=now - timedelta(hours=1))
    refresh_overview_stats(now=now - timedelta(seconds=settings.PORTAL_STATS_MAX_AGE_SECONDS + 1))
    f.store(f.record("2611.00002"), at=now)
    stats = overview_stats_cached()
    assert stats.totals.papers == 2
    assert stats.computed_at >= now
    assert cache.get(CACHE_KEY).computed_at == stats.computed_at  # and stored for the next requests


def test_with_nothing_stored_a_request_computes_and_stores_the_numbers(django_assert_max_num_queries):
    f.store(f.record("2611.00001"), at=timezone.now())
    assert cache.get(CACHE_KEY) is None
    assert overview_stats_cached().totals.papers == 1
    with django_assert_max_num_queries(0):
        assert overview_stats_cached().totals.papers == 1


def test_beat_refreshes_the_numbers_every_minute_on_the_default_queue():
    from papertrail.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["portal-overview-stats"]
    assert entry["task"] == "portal.refresh_overview_stats"
    assert entry["schedule"] == settings.PORTAL_STATS_REFRESH_SECONDS == 60
    assert entry["options"]["queue"] == "default"
    assert 0 < entry["options"]["expires"] < entry["schedule"]
    assert settings.PORTAL_STATS_REFRESH_SECONDS < settings.PORTAL_STATS_MAX_AGE_SECONDS
    # The worker imports the task module (CELERY_IMPORTS), so it knows the task by name.
    app.loader.import_default_modules()
    assert "portal.refresh_overview_stats" in app.tasks
