"""Thumbs up / down on the pages: a POST rates, pressing the pressed thumb
undoes, a bad value is a 400 naming it; every card a signed-in reader sees
(trail, library, Recommended tab, paper page) shows the reader's own rating
as a pressed button, with one ratings query for the page; visitors get none."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.models import Rating, Recommendation, RecommenderProfile
from accounts.recommend.services import rating_set
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest, record

pytestmark = pytest.mark.django_db
UP, DOWN = Rating.Value.UP, Rating.Value.DOWN


@pytest.fixture
def reader(db) -> User:
    user = User.objects.create_user("reader", password="x", language="en")
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="ML")
    harvest(*(record(f"2611.0000{n}") for n in range(1, 6)), at=ago(hours=3))
    return user


def _client(user: User | None = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _paper(arxiv_id: str) -> Paper:
    return Paper.objects.get(arxiv_id=arxiv_id)


def _pressed(html: str, paper: Paper) -> dict[str, str]:
    """The aria-pressed state and the submitted value of the card's two thumbs."""
    form = re.search(rf'<form[^>]*id="rating-{paper.pk}".*?</form>', html, re.S)
    assert form, f"no rating controls for {paper.arxiv_id}"
    buttons = re.findall(r'<button[^>]*value="(\w+)"[^>]*data-rate="(\w+)"[^>]*aria-pressed="(\w+)"', form.group(0))
    return {rate: f"{pressed}:{value}" for value, rate, pressed in buttons}


def test_a_post_rates_and_pressing_the_pressed_thumb_undoes_it(reader):
    client = _client(reader)
    paper = _paper("2611.00001")
    url = f"/ratings/{paper.arxiv_id}/"
    response = client.post(url, {"value": "up", "next": "/trail/?unread=1"})
    assert response.status_code == 302 and response.url == f"/trail/?unread=1#rating-{paper.pk}"
    assert Rating.objects.get(user=reader, paper=paper).value == UP
    page = client.get("/trail/").content.decode()
    assert _pressed(page, paper) == {"up": "true:clear", "down": "false:down"}
    client.post(url, {"value": "down", "next": "/trail/"})
    assert _pressed(client.get("/trail/").content.decode(), paper) == {"up": "false:up", "down": "true:clear"}
    client.post(url, {"value": "clear", "next": "/trail/"})
    assert not Rating.objects.filter(user=reader).exists()
    assert _pressed(client.get("/trail/").content.decode(), paper) == {"up": "false:up", "down": "false:down"}
    # Another site as `next` is not followed: back to the paper's page.
    away = client.post(url, {"value": "up", "next": "https://example.org/"})
    assert away.url == f"/papers/{paper.arxiv_id}/#rating-{paper.pk}"


def test_bad_values_papers_and_methods_are_refused(reader):
    client = _client(reader)
    bad = client.post("/ratings/2611.00001/", {"value": "sideways"})
    assert bad.status_code == 400 and "value" in bad.content.decode()
    assert client.post("/ratings/2611.09999/", {"value": "up"}).status_code == 404
    assert client.get("/ratings/2611.00001/").status_code == 405
    visitor = _client().post("/ratings/2611.00001/", {"value": "up"})
    assert visitor.status_code == 302 and visitor.url.startswith("/login/")
    assert not Rating.objects.exists()


def test_every_card_a_reader_sees_shows_their_own_rating(reader, settings):
    settings.RECOMMEND_MIN_SAVES = 2
    other = User.objects.create_user("other", password="x")
    rating_set(user=reader, paper=_paper("2611.00001"), value=UP)
    rating_set(user=reader, paper=_paper("2611.00002"), value=DOWN)
    rating_set(user=other, paper=_paper("2611.00003"), value=UP)
    for paper in Paper.objects.filter(arxiv_id__in=["2611.00004", "2611.00005"]):
        record_save(user=reader, paper=paper)
    # The Recommended tab holds papers outside the follows.
    harvest(record("2611.00006", categories=["q-bio.NC"]), at=ago(hours=3))
    rating_set(user=reader, paper=_paper("2611.00006"), value=UP)
    for arxiv_id in ("2611.00006", "2611.00003"):
        Recommendation.objects.create(user=reader, paper=_paper(arxiv_id), score=1.0, event_at=ago(hours=3))
    RecommenderProfile.objects.create(user=reader, trained_at=ago(minutes=1))
    client = _client(reader)
    for path in ("/trail/", "/papers/", "/papers/?q=paper"):
        page = client.get(path).content.decode()
        assert _pressed(page, _paper("2611.00001"))["up"] == "true:clear", path
        assert _pressed(page, _paper("2611.00002"))["down"] == "true:clear", path
        assert _pressed(page, _paper("2611.00003")) == {"up": "false:up", "down": "false:down"}, path
    recommended = client.get("/trail/recommended/").content.decode()
    assert _pressed(recommended, _paper("2611.00006"))["up"] == "true:clear"
    detail = client.get("/papers/2611.00002/").content.decode()
    assert _pressed(detail, _paper("2611.00002"))["down"] == "true:clear"
    assert 'aria-label="Your rating (your recommendations learn from it)"' in detail
    # A visitor's library and paper page have no thumbs.
    for path in ("/papers/", "/papers/2611.00001/"):
        assert 'class="rating-controls"' not in _client().get(path).content.decode()


def test_the_trail_reads_the_pages_ratings_in_one_query(reader):
    client = _client(reader)
    client.get("/trail/")
    with CaptureQueriesContext(connection) as before:
        client.get("/trail/")
    for n in range(1, 5):
        rating_set(user=reader, paper=_paper(f"2611.0000{n}"), value=UP)
    with CaptureQueriesContext(connection) as after:
        page = client.get("/trail/").content.decode()
    assert len(re.findall(r'data-rate="\w+"[^>]*aria-pressed="true"', page)) == 4
    assert len(after) == len(before)
    assert sum('"accounts_rating"' in query["sql"] for query in after.captured_queries) == 1


def test_the_thumbs_are_labelled_in_chinese(reader):
    reader.language = "zh-hans"
    reader.save(update_fields=["language"])
    page = _client(reader).get("/trail/").content.decode()
    assert "多推荐这类" in page and "少推荐这类" in page
    assert 'aria-label="你的评价（你的推荐会据此学习）"' in page
