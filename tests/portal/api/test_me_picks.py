"""/api/v1/me/picks/: the day's papers in the caller's categories to pick
from, and one POST of one to ten of them (each a thumbs up from the picks
page); a 400 names `papers` (none, too many, not offered, not a list) or
`day`; the caller's own offer and picks only; a GET writes nothing."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.models import Rating
from harvest.completeness import latest_expected_announcement, listing_day
from tests.accounts.conftest import ago
from tests.factories import latest_listing, record, store, submitted_for_listing
from tests.portal.db_writes import rows_written

# Calendar: the offer is the latest listing day's papers, found from now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]
URL = "/api/v1/me/picks/"


@pytest.fixture
def today(user) -> list[str]:
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    ids = [f"2612.{n:05d}" for n in range(1, 13)]
    now = submitted_for_listing(latest_listing())
    before = submitted_for_listing(listing_day(latest_expected_announcement(at=ago(days=9))))
    store(*(record(arxiv_id, categories=["cs.SE"], first_submitted=now) for arxiv_id in ids), at=ago(minutes=30))
    store(record("2611.00001", categories=["cs.SE"], first_submitted=before), at=ago(days=9))
    store(record("2613.00001", categories=["cs.CV"], first_submitted=now), at=ago(minutes=30))
    follow_create(user=user, kind="category", value={"code": "cs.SE"})
    return ids


@pytest.fixture
def api(client_api, token):
    client_api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client_api


def test_the_offer_is_the_days_papers_in_the_followed_categories(
    api, client_api, user, today, django_assert_max_num_queries
):
    assert api.get(URL).status_code == 200  # the token's first use is stamped: a write of its own
    before = rows_written()
    with django_assert_max_num_queries(14):
        body = api.get(URL).json()
    assert rows_written() == before
    assert (body["basis"], body["categories"], body["max_picks"], body["picks"]) == ("follows", ["cs.SE"], 10, 0)
    assert body["day"] and body["announced_at"]
    assert sorted(item["paper"]["arxiv_id"] for item in body["results"]) == today
    assert {(item["category"], item["picked"], item["saved"]) for item in body["results"]} == {("cs.SE", False, False)}
    day = listing_day(latest_expected_announcement(at=ago(days=9))).isoformat()
    older = api.get(URL, {"day": day}).json()
    assert older["day"] == day and [item["paper"]["arxiv_id"] for item in older["results"]] == ["2611.00001"]


def test_a_post_picks_the_papers_and_a_second_one_changes_nothing(api, user, today):
    day = api.get(URL).json()["day"]
    response = api.post(URL, {"papers": [today[0], f"{today[1]}v2"], "day": day}, format="json")
    assert response.status_code == 201
    assert response.json() == {"picked": today[:2], "new": 2, "picks": 2}
    again = api.post(URL, {"papers": today[:2]}, format="json")
    assert again.status_code == 201 and again.json() == {"picked": today[:2], "new": 0, "picks": 2}
    rows = Rating.objects.filter(user=user)
    assert {(r.paper.arxiv_id, r.value, r.source) for r in rows} == {(a, 1, "pick") for a in today[:2]}
    listed = api.get(URL).json()["results"]
    assert {item["paper"]["arxiv_id"] for item in listed if item["picked"]} == set(today[:2])
    # A pick is a thumbs up like any other in the ratings API.
    assert api.get(f"/api/v1/me/ratings/{today[0]}/").json()["value"] == "up"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"papers": []}, "papers"),
        ({"papers": "2612.00001"}, "papers"),
        ({}, "papers"),
        ({"papers": [f"2612.{n:05d}" for n in range(1, 12)]}, "papers"),
        ({"papers": ["2611.00001"]}, "papers"),
        ({"papers": ["2613.00001"]}, "papers"),
        ({"papers": ["not an id"]}, "papers"),
        ({"papers": ["2612.00001"], "day": "2026-12-05"}, "day"),
        ({"papers": ["2612.00001"], "day": "tomorrow"}, "day"),
    ],
)
def test_a_bad_post_is_a_400_naming_the_parameter(api, user, today, body, field):
    response = api.post(URL, body, format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]
    assert response.json()["detail"].startswith(f"{field}")
    assert not Rating.objects.filter(user=user).exists()


def test_a_bad_day_to_get_is_a_400_naming_it(api, today):
    response = api.get(URL, {"day": "2026-13-01"})
    assert response.status_code == 400 and list(response.json()["errors"]) == ["day"]


def test_the_offer_and_the_picks_are_the_callers_own(api, client_api, user, today):
    other = User.objects.create_user("grace", password="x")
    client_api.force_authenticate(other)
    # Grace follows nothing and saved nothing: computer science's most popular papers, her own offer.
    body = client_api.get(URL).json()
    assert body["basis"] == "popular" and body["picks"] == 0
    assert client_api.post(URL, {"papers": today[:1]}, format="json").status_code == 201
    client_api.force_authenticate(None)
    client_api.credentials()
    assert client_api.get(URL).status_code == 401
    assert client_api.post(URL, {"papers": today[:1]}, format="json").status_code == 401
    assert not Rating.objects.filter(user=user).exists()
    assert Rating.objects.filter(user=other, source="pick").count() == 1
