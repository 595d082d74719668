"""The trail's Recommended tab and /api/v1/me/recommendations/ on real
recorded papers: what to do below the minimum, the papers with why, not
interested, save and open, in both languages, with a bounded query count."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.models import NotInterested, Recommendation
from accounts.records.models import Record
from accounts.records.services import record_save
from tests.accounts.recommend.helpers import store_real_papers, topic

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(db) -> User:
    user = User.objects.create_user("reader", password="x", language="en")
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    return user


@pytest.fixture
def recommended(reader) -> list:
    papers = store_real_papers()
    saved = topic(papers, "stat.ME")[:5]
    for paper in saved:
        record_save(user=reader, paper=paper)
    retrain_and_rescore(reader.pk)
    return saved


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(("language", "expected"), [("en", "Save 3 more papers"), ("zh-hans", "再保存 3 篇论文")])
def test_below_the_minimum_the_tab_says_what_to_do(reader, language, expected):
    User.objects.filter(pk=reader.pk).update(language=language)
    response = _client(reader).get(reverse("portal:trail_recommended"))
    assert response.status_code == 200
    body = response.content.decode()
    assert expected in body and "data-recommend-empty" in body
    assert ("推荐" if language == "zh-hans" else "Recommended") in body


def test_the_tab_lists_papers_with_why_and_the_marks_work(reader, recommended, django_assert_max_num_queries):
    client = _client(reader)
    with django_assert_max_num_queries(16):
        response = client.get(reverse("portal:trail_recommended"))
    body = response.content.decode()
    rows = list(Recommendation.objects.filter(user=reader).order_by("-score")[:20])
    assert body.count("data-recommendation=") == 20
    assert f'data-recommendation="{rows[0].pk}"' in body
    assert any(f'data-neighbour="{paper.arxiv_id}"' in body for paper in recommended)
    assert "data-term" in body and 'aria-current="page" data-tab="recommended"' in body

    client.post(reverse("portal:recommendation_not_interested", args=[rows[0].pk]))
    assert NotInterested.objects.filter(user=reader, paper_id=rows[0].paper_id).exists()
    client.post(reverse("portal:recommendation_save", args=[rows[1].pk]))
    assert Record.objects.filter(user=reader, paper_id=rows[1].paper_id).exists()
    opened = client.get(reverse("portal:recommendation_open", args=[rows[2].pk]))
    assert opened.status_code == 302 and opened.url == reverse("portal:paper_detail", args=[rows[2].paper.arxiv_id])
    # The redirect writes nothing; the paper page's own POST marks it seen.
    assert f'data-recommendation="{rows[2].pk}"' in client.get(reverse("portal:trail_recommended")).content.decode()
    opened_url = reverse("portal:paper_opened", args=[rows[2].paper.arxiv_id])
    assert client.post(opened_url, {"version": rows[2].paper.latest_version}).status_code == 200
    body = client.get(reverse("portal:trail_recommended")).content.decode()
    for row in rows[:3]:
        assert f'data-recommendation="{row.pk}"' not in body
    assert f'data-recommendation="{rows[3].pk}"' in body


def test_the_trail_has_both_tabs(reader):
    body = _client(reader).get(reverse("portal:trail")).content.decode()
    assert 'aria-current="page" data-tab="trail"' in body and reverse("portal:trail_recommended") in body


def test_another_users_tag_is_a_404(reader, recommended):
    assert _client(reader).get(reverse("portal:trail_recommended") + "?tag=999999").status_code == 404


def test_the_api_gives_the_same_papers_and_reasons(reader, recommended):
    client = _client(reader)
    data = client.get("/api/v1/me/recommendations/?limit=5").json()
    assert data["ready"] is True and data["saves"] == 5 and data["min_saves"] == 3
    page = client.get(reverse("portal:trail_recommended")).content.decode()
    ids = [row["id"] for row in data["results"]]
    assert len(ids) == 5
    positions = [page.index(f'data-recommendation="{pk}"') for pk in ids]
    assert positions == sorted(positions), "the same order as the tab"
    first = data["results"][0]
    assert {n["arxiv_id"] for n in first["neighbours"]} <= {paper.arxiv_id for paper in recommended}
    assert first["terms"] and first["paper"]["arxiv_id"]
    refused = client.post(f"/api/v1/me/recommendations/{ids[0]}/not-interested/")
    assert refused.status_code == 200 and refused.json() == {"id": ids[0], "not_interested": True}
    again = client.get("/api/v1/me/recommendations/?limit=5").json()
    assert ids[0] not in [row["id"] for row in again["results"]]


@pytest.mark.parametrize(("query", "field"), [("limit=0", "limit"), ("limit=x", "limit"), ("tag=12", "tag")])
def test_the_api_names_a_bad_parameter(reader, query, field):
    response = _client(reader).get(f"/api/v1/me/recommendations/?{query}")
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_below_the_minimum_the_api_is_not_ready(reader):
    data = _client(reader).get("/api/v1/me/recommendations/").json()
    assert data == {"ready": False, "saves": 0, "min_saves": 3, "trained_at": None, "per_tag": False, "results": []}
