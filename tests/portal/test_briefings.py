"""/briefings/<kind>/: exactly the papers behind each overview number."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from portal.stats.windows import display_zone
from tests import factories as f
from tests.portal.test_library import ids_on

# Calendar: a briefing lists the papers of the 24 hours before now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]


@pytest.fixture
def day_of_news():
    now = timezone.now()
    f.store(f.record("2611.00001", categories=["cs.LG"]), at=now - timedelta(hours=2))  # new, AI
    f.store(f.record("2611.00002", categories=["cs.DS"]), at=now - timedelta(hours=3))  # new
    f.store(f.record("2611.00003", versions=1), at=now - timedelta(days=5))
    f.store(f.record("2611.00003", versions=3), at=now - timedelta(hours=4))  # two revisions
    f.store(f.record("2611.00004"), at=now - timedelta(days=3))  # quiet: in no briefing of today
    f.reading(f.version("2611.00003", 3), written_at=now - timedelta(hours=1), text="修订导读")
    return now


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("new", ["2611.00001", "2611.00002"]),
        ("ai", ["2611.00001"]),
        ("revisions", ["2611.00003"]),
        ("readings", ["2611.00003"]),
    ],
)
def test_each_briefing_lists_exactly_the_papers_behind_its_number(client, day_of_news, kind, expected):
    response = client.get(f"/briefings/{kind}/")
    assert response.status_code == 200
    assert ids_on(response) == expected


def test_revision_briefing_names_the_new_versions_and_counts_them(client, day_of_news):
    page = client.get("/briefings/revisions/").content.decode()
    assert "已有论文的 2 个新版本，涉及 1 篇论文" in page
    assert 'href="/papers/2611.00003/#v2">v2</a>, <a href="/papers/2611.00003/#v3">v3</a>' in page


def test_reading_briefing_shows_the_readings_of_the_window(client, day_of_news):
    page = client.get("/briefings/readings/").content.decode()
    assert "修订导读 takeaway" in page


def test_overview_numbers_link_to_briefings_of_the_same_window(client, day_of_news):
    overview = client.get("/").content.decode()
    links = dict(
        re.findall(r'href="(/briefings/[a-z]+/\?end=[^"]+)" data-stat="([a-z_]+)"', overview)[i][::-1] for i in range(4)
    )
    numbers = dict(re.findall(r'data-stat="([a-z_]+)"><strong>\+(\d+)</strong>', overview))
    assert numbers == {"new_papers": "2", "new_ai": "1", "revisions": "2", "new_readings": "1"}
    assert len(ids_on(client.get(links["new_papers"]))) == 2
    assert len(ids_on(client.get(links["new_ai"]))) == 1
    assert "已有论文的 2 个新版本" in client.get(links["revisions"]).content.decode()


def test_a_past_window_is_chosen_in_the_url(client, day_of_news):
    end = (day_of_news - timedelta(days=2)).astimezone(display_zone()).strftime("%Y-%m-%dT%H:%M")
    response = client.get("/briefings/new/", {"end": end})
    assert ids_on(response) == ["2611.00004"]
    page = response.content.decode()
    assert "统计 " in page and "（北京时间）" in page
    assert "← 前 24 小时" in page


@pytest.mark.parametrize("end", ["tomorrow", "2999-01-01T00:00", "1970-01-01"])
def test_a_bad_window_end_is_a_readable_400(client, end):
    response = client.get("/briefings/new/", {"end": end})
    assert response.status_code == 400
    assert 'class="errors" role="alert"' in response.content.decode()


def test_an_unknown_briefing_is_a_404(client):
    assert client.get("/briefings/popular/").status_code == 404


def test_briefing_query_count_is_fixed(client, day_of_news, django_assert_max_num_queries):
    now = timezone.now()
    f.store(*[f.record(f"2611.{n:05d}") for n in range(100, 160)], at=now - timedelta(minutes=30))
    with django_assert_max_num_queries(9):
        response = client.get("/briefings/new/")
    assert len(ids_on(response)) == 50


def test_briefings_index_goes_to_new_papers_keeping_the_window(client):
    response = client.get("/briefings/?end=2026-11-13")
    assert (response.status_code, response["Location"]) == (302, "/briefings/new/?end=2026-11-13")
