"""/api/v1/me/ratings/: thumbs up or down (and again), undoing, the list with
its filter and pages, errors naming the field, another user's ratings out of
reach, and the `rating` of every trail and recommendation item, read in one
query for the page."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.models import Rating, Recommendation, RecommenderProfile
from accounts.recommend.services import rating_set
from accounts.records.services import record_save
from accounts.services import api_token_create
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest, record

pytestmark = pytest.mark.django_db
RATINGS = "/api/v1/me/ratings/"


@pytest.fixture
def api(client_api, token, user):
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    client_api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client_api


@pytest.fixture
def library(db) -> dict[str, Paper]:
    harvest(*(record(f"2611.0000{n}") for n in range(1, 6)), at=ago(days=2))
    return {paper.arxiv_id: paper for paper in Paper.objects.all()}


def test_a_post_rates_a_second_changes_and_delete_undoes(api, user, library):
    created = api.post(RATINGS, {"paper": "2611.00001v1", "value": "up"}, format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["paper"]["arxiv_id"] == "2611.00001" and body["value"] == "up"
    assert body["created_at"] == body["updated_at"]
    again = api.post(RATINGS, {"paper": "2611.00001", "value": "down"}, format="json")
    assert again.status_code == 200 and again.json()["value"] == "down"
    assert Rating.objects.get(user=user).value == Rating.Value.DOWN
    assert api.get(f"{RATINGS}2611.00001/").json()["value"] == "down"
    assert api.delete(f"{RATINGS}2611.00001v1/").status_code == 204
    assert not Rating.objects.filter(user=user).exists()
    gone = api.delete(f"{RATINGS}2611.00001/")
    assert gone.status_code == 404 and "arxiv_id" in gone.json()["errors"]
    assert api.get(f"{RATINGS}2611.00001/").status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "status"),
    [
        ({"paper": "2611.00001", "value": "sideways"}, "value", 400),
        ({"paper": "2611.00001", "value": 1}, "value", 400),
        ({"paper": "2611.00001"}, "value", 400),
        ({"value": "up"}, "paper", 400),
        ({"paper": "not an id", "value": "up"}, "paper", 400),
        ({"paper": "2611.09999", "value": "up"}, "paper", 404),
    ],
)
def test_bad_bodies_name_the_field(api, user, library, body, field, status):
    response = api.post(RATINGS, body, format="json")
    assert response.status_code == status and field in response.json()["errors"], response.json()
    assert not Rating.objects.filter(user=user).exists()


def test_the_list_filters_by_value_and_pages(api, user, library):
    for arxiv_id, value in [("2611.00001", 1), ("2611.00002", -1), ("2611.00003", 1)]:
        rating_set(user=user, paper=library[arxiv_id], value=value)
    everything = api.get(RATINGS).json()
    assert everything["count"] == 3 and everything["next"] is None and everything["previous"] is None
    assert [r["paper"]["arxiv_id"] for r in everything["results"]] == ["2611.00003", "2611.00002", "2611.00001"]
    ups = api.get(RATINGS, {"value": "up"}).json()
    assert [r["paper"]["arxiv_id"] for r in ups["results"]] == ["2611.00003", "2611.00001"]
    first = api.get(RATINGS, {"page_size": 2}).json()
    second = api.get(first["next"]).json()
    assert [r["paper"]["arxiv_id"] for r in second["results"]] == ["2611.00001"] and second["previous"]
    for query, field in [({"value": "1"}, "value"), ({"page": "0"}, "page"), ({"page_size": "x"}, "page_size")]:
        response = api.get(RATINGS, query)
        assert response.status_code == 400 and field in response.json()["errors"], query


def test_another_users_ratings_are_out_of_reach(api, user, library):
    other = User.objects.create_user("bob", password="x")
    rating_set(user=other, paper=library["2611.00004"], value=Rating.Value.UP)
    assert api.get(RATINGS).json()["count"] == 0
    assert api.get(f"{RATINGS}2611.00004/").status_code == 404
    assert api.delete(f"{RATINGS}2611.00004/").status_code == 404
    assert Rating.objects.filter(user=other).count() == 1
    _token, secret = api_token_create(user=other, name="bob's")
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert api.get(f"{RATINGS}2611.00004/").json()["value"] == "up"


def test_ratings_need_credentials(client_api, library):
    assert client_api.get(RATINGS).status_code == 401
    assert client_api.post(RATINGS, {"paper": "2611.00001", "value": "up"}, format="json").status_code == 401


def test_trail_and_recommendation_items_carry_the_rating_read_once_for_the_page(api, user, library):
    follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="ML")
    harvest(*(record(f"2611.0001{n}") for n in range(10)), at=ago(hours=3))
    rating_set(user=user, paper=Paper.objects.get(arxiv_id="2611.00011"), value=Rating.Value.UP)
    rating_set(user=user, paper=Paper.objects.get(arxiv_id="2611.00012"), value=Rating.Value.DOWN)
    api.get("/api/v1/me/trail/")  # the first read delivers the cards and warms the token's last use
    items = {item["paper"]["arxiv_id"]: item["rating"] for item in api.get("/api/v1/me/trail/").json()["results"]}
    assert items["2611.00011"] == "up" and items["2611.00012"] == "down" and items["2611.00013"] is None
    # The page's ratings are one query, however many of its papers are rated.
    with CaptureQueriesContext(connection) as before:
        api.get("/api/v1/me/trail/")
    rating_set(user=user, paper=Paper.objects.get(arxiv_id="2611.00014"), value=Rating.Value.UP)
    with CaptureQueriesContext(connection) as after:
        api.get("/api/v1/me/trail/")
    assert len(after) == len(before)
    assert sum('"accounts_rating"' in query["sql"] for query in after.captured_queries) == 1

    for paper in Paper.objects.filter(arxiv_id__in=["2611.00001", "2611.00002", "2611.00003"]):
        record_save(user=user, paper=paper)
    # Recommendations are papers outside the follows.
    harvest(*(record(f"2611.0002{n}", categories=["q-bio.NC"]) for n in range(1, 4)), at=ago(hours=3))
    rating_set(user=user, paper=Paper.objects.get(arxiv_id="2611.00021"), value=Rating.Value.UP)
    rating_set(user=user, paper=Paper.objects.get(arxiv_id="2611.00022"), value=Rating.Value.DOWN)
    for n, arxiv_id in enumerate(["2611.00021", "2611.00022", "2611.00023"]):
        Recommendation.objects.create(
            user=user, paper=Paper.objects.get(arxiv_id=arxiv_id), score=1.0 - n / 10, event_at=ago(hours=3)
        )
    RecommenderProfile.objects.update_or_create(user=user, defaults={"trained_at": ago(minutes=1)})
    results = api.get("/api/v1/me/recommendations/").json()["results"]
    assert [(r["paper"]["arxiv_id"], r["rating"]) for r in results] == [
        ("2611.00021", "up"),
        ("2611.00022", "down"),
        ("2611.00023", None),
    ]
