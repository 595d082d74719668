"""/api/v1/me/records/ and /api/v1/me/tags/: saving (and saving again),
changing, unsaving, the list's filters and pages, errors naming the field,
and another user's records out of reach."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.records.models import Record, Tag
from accounts.records.services import record_save
from harvest.models import Paper
from tests import factories as f
from tests.portal.record_filters import BAD_FILTERS

pytestmark = pytest.mark.django_db
RECORDS = "/api/v1/me/records/"


@pytest.fixture
def api(client_api, token):
    client_api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client_api


@pytest.fixture
def library(db):
    f.store(
        f.record("2611.00001", title="Sparse attention", categories=["cs.CL"]),
        f.record("2611.00002", title="Graph kernels", categories=["cs.LG"]),
        f.record("hep-th/9901001", title="Strings", categories=["hep-th"]),
        at=timezone.now() - timedelta(days=1),
    )


def test_a_post_saves_and_a_second_post_updates(api, user, library):
    body = {"paper": "2611.00001v1", "state": "reading", "tags": ["LLM", "llm", "attention"], "note": "*see* $x$"}
    created = api.post(RECORDS, body, format="json")
    assert created.status_code == 201, created.json()
    data = created.json()
    assert data["paper"]["arxiv_id"] == "2611.00001" and data["state"] == "reading"
    assert data["tags"] == ["LLM", "attention"] and data["note"] == "*see* $x$" and data["reading_at"]
    again = api.post(RECORDS, {"paper": "2611.00001", "state": "read"}, format="json")
    assert again.status_code == 200 and again.json()["tags"] == ["LLM", "attention"]
    assert Record.objects.get(user=user).state == "read"


@pytest.mark.parametrize(
    ("body", "field", "status"),
    [
        ({"state": "read"}, "paper", 400),
        ({"paper": "not an id"}, "paper", 400),
        ({"paper": "2611.99999"}, "paper", 404),
        ({"paper": "2611.00001", "state": "skimmed"}, "state", 400),
        ({"paper": "2611.00001", "tags": "one"}, "tags", 400),
        ({"paper": "2611.00001", "tags": ["x" * 101]}, "tags", 400),
        ({"paper": "2611.00001", "note": "x" * 50_001}, "note", 400),
        ({"paper": "2611.00001", "note": "nul\x00"}, "note", 400),
    ],
)
def test_bad_bodies_name_the_field_and_save_nothing(api, library, body, field, status):
    response = api.post(RECORDS, body, format="json")
    assert response.status_code == status and field in response.json()["errors"], response.json()
    assert not Record.objects.exists()


def test_detail_get_patch_delete_by_arxiv_id_including_old_style(api, user, library):
    record_save(user=user, paper=Paper.objects.get(arxiv_id="hep-th/9901001"), tags=["strings"])
    url = f"{RECORDS}hep-th/9901001/"
    assert api.get(url).json()["tags"] == ["strings"]
    changed = api.patch(url, {"tags": [], "note": "done", "state": "read"}, format="json")
    assert changed.status_code == 200 and changed.json()["tags"] == [] and changed.json()["read_at"]
    bad = api.patch(url, {"state": "later"}, format="json")
    assert bad.status_code == 400 and "state" in bad.json()["errors"]
    assert api.delete(url).status_code == 204 and not Record.objects.exists()
    missing = api.get(url)
    assert missing.status_code == 404 and "arxiv_id" in missing.json()["errors"]
    assert api.get(f"{RECORDS}nonsense/").status_code == 400


def test_another_users_record_is_a_404_and_never_listed(api, user, library):
    other = User.objects.create_user("other")
    record_save(user=other, paper=Paper.objects.get(arxiv_id="2611.00002"), note="their note", tags=["theirs"])
    assert api.get(f"{RECORDS}2611.00002/").status_code == 404
    assert api.patch(f"{RECORDS}2611.00002/", {"note": "mine now"}, format="json").status_code == 404
    assert api.delete(f"{RECORDS}2611.00002/").status_code == 404
    assert api.get(RECORDS).json()["count"] == 0 and api.get("/api/v1/me/tags/").json()["results"] == []
    assert Record.objects.get(user=other).note == "their note"


def test_the_list_filters_sorts_and_pages(api, user, library):
    for arxiv_id, state, tags in (
        ("2611.00001", "read", ["nlp"]),
        ("2611.00002", "to_read", []),
        ("hep-th/9901001", "reading", ["nlp"]),
    ):
        record_save(user=user, paper=Paper.objects.get(arxiv_id=arxiv_id), state=state, tags=tags)

    def ids(query: str = "") -> list[str]:
        response = api.get(f"{RECORDS}?{query}")
        assert response.status_code == 200, response.json()
        return [row["paper"]["arxiv_id"] for row in response.json()["results"]]

    assert ids() == ["hep-th/9901001", "2611.00002", "2611.00001"]
    assert ids("sort=title") == ["2611.00002", "2611.00001", "hep-th/9901001"]
    assert ids("tag=NLP") == ["hep-th/9901001", "2611.00001"]
    assert ids("state=read") == ["2611.00001"] and ids("category=cs.LG") == ["2611.00002"]
    assert ids("q=kernels") == ["2611.00002"] and ids("q=nowhere") == []
    first = api.get(f"{RECORDS}?page_size=2").json()
    assert first["count"] == 3 and first["previous"] is None and "page=2" in first["next"]
    assert [r["paper"]["arxiv_id"] for r in api.get(first["next"]).json()["results"]] == ["2611.00001"]
    for query, field in BAD_FILTERS:
        response = api.get(f"{RECORDS}?{query}")
        assert response.status_code == 400 and field in response.json()["errors"]
    tags = api.get("/api/v1/me/tags/").json()
    assert tags["results"] == [{"id": Tag.objects.get(name="nlp").pk, "name": "nlp", "count": 2}]
    assert tags["by_state"] == {"to_read": 1, "reading": 1, "read": 1} and tags["total"] == 3


def test_anonymous_gets_401(client_api, library):
    assert client_api.get(RECORDS).status_code == 401
    assert client_api.get("/api/v1/me/tags/").status_code == 401
