"""/api/v1/me/follows/: each kind created in the API's shapes, errors naming
the field, changes, removal and the preview, over the real services."""

from __future__ import annotations

import pytest

from accounts.follows import selectors as follow_selectors
from accounts.follows.models import Follow
from harvest.models import Paper
from tests.accounts.conftest import ago, cards, harvest, record

pytestmark = pytest.mark.django_db
FOLLOWS = "/api/v1/me/follows/"


def trail_arxiv_ids(user) -> list[str]:
    """The arxiv ids of the user's trail cards, newest first."""
    shown = [card.paper_id for card in cards(user)]
    arxiv_ids = dict(Paper.objects.filter(pk__in=shown).values_list("pk", "arxiv_id"))
    return [arxiv_ids[paper_id] for paper_id in shown]


@pytest.fixture
def api(client_api, token):
    client_api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client_api


def create(api, **body):
    return api.post(FOLLOWS, body, format="json")


@pytest.mark.parametrize(
    ("kind", "value", "stored", "shown"),
    [
        ("category", "cs.CL", {"code": "cs.CL"}, "cs.CL"),
        ("category", "cs", {"code": "cs"}, "cs"),
        (
            "author",
            ["Yann LeCun", "Y. LeCun"],
            {"author": "Yann LeCun", "variants": ["Yann LeCun", "Y. LeCun"]},
            ["Yann LeCun", "Y. LeCun"],
        ),
        ("query", '"diffusion model" -survey', {"q": '"diffusion model" -survey'}, '"diffusion model" -survey'),
        (
            "filters",
            {"category": "cs.CV", "q": "retrieval", "hf": True},
            {"category": ["cs.CV"], "q": "retrieval", "hf": "1"},
            {"category": ["cs.CV"], "q": "retrieval", "hf": "1"},
        ),
        (
            "topic",
            {"description": "差分隐私 differential privacy", "threshold": 3},
            {"description": "差分隐私 differential privacy", "threshold": 3.0},
            {"description": "差分隐私 differential privacy", "threshold": 3.0},
        ),
    ],
)
def test_each_kind_is_created_in_the_apis_shape(api, user, kind, value, stored, shown):
    response = create(api, kind=kind, value=value, name="mine", delivery="daily")
    assert response.status_code == 201, response.json()
    body = response.json()
    follow = Follow.objects.get(user=user)
    assert follow.value == stored and follow.delivery == "daily"
    assert body["id"] == follow.pk and body["kind"] == kind and body["value"] == shown and body["name"] == "mine"
    assert body["include_cross_lists"] is True and body["muted"] is False and body["unread"] == 0
    assert api.get(f"{FOLLOWS}{follow.pk}/").json() == body
    listed = api.get(FOLLOWS).json()
    assert listed["count"] == 1 and listed["results"] == [body] and listed["limit"] >= 1


def test_a_follow_without_a_name_is_named_after_its_value(api):
    assert create(api, kind="author", value="Ada Lovelace").json()["name"] == "Ada Lovelace"


def test_a_new_follow_brings_the_last_days_and_counts_unread(api, user):
    harvest(record("2611.00001", categories=["cs.CL"]), at=ago(days=2))
    body = create(api, kind="category", value="cs.CL", name="NLP").json()
    assert body["unread"] == 1
    me = api.get("/api/v1/me/").json()
    assert me["follows"] == 1 and me["unread"] == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "category", "value": "cs.XX", "name": "x"}, "value"),
        ({"kind": "category", "value": ["cs.CL"], "name": "x"}, "value"),
        ({"kind": "category", "value": "cs.CL", "name": "   "}, "name"),
        ({"kind": "query", "value": "the of", "name": "x"}, "value"),
        ({"kind": "query", "value": "-survey", "name": "x"}, "value"),
        ({"kind": "author", "value": [" "], "name": "x"}, "value"),
        ({"kind": "author", "value": [], "name": "x"}, "value"),
        ({"kind": "filters", "value": {"colour": "red"}, "name": "x"}, "value.colour"),
        ({"kind": "filters", "value": {"category": "nope!"}, "name": "x"}, "value.category"),
        ({"kind": "filters", "value": {"q": {"deep": 1}}, "name": "x"}, "value.q"),
        ({"kind": "filters", "value": {}, "name": "x"}, "value"),
        ({"kind": "filters", "value": "cs.CL", "name": "x"}, "value"),
        ({"kind": "venue", "value": "x", "name": "x"}, "kind"),
        ({"kind": "category", "value": "cs.CL", "delivery": "hourly"}, "delivery"),
        ({"kind": "author", "value": ["Ada\x00Lovelace"], "name": "x"}, "value"),
        ({"kind": "filters", "value": {"author": "Ada\x00"}, "name": "x"}, "value.author"),
        ({"kind": "category", "value": "cs.CL", "name": "NLP\x00"}, "name"),
        ({"value": "cs.CL"}, "kind"),
        ({"kind": "category"}, "value"),
        ({"kind": "topic", "value": "diffusion"}, "value"),
        ({"kind": "topic", "value": {"description": "diffusion", "threshold": 0}}, "value.threshold"),
        ({"kind": "topic", "value": {"examples": ["2611.99999"]}}, "value.examples"),
        ({"kind": "topic", "value": {"description": ""}}, "value.description"),
        ({"kind": "topic", "value": {"description": "x", "colour": "red"}}, "value.colour"),
    ],
)
def test_validation_errors_name_the_field(api, user, body, field):
    response = create(api, **body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == [field] and all(errors[field]), errors
    assert not Follow.objects.filter(user=user).exists()


def test_beyond_the_limit_of_follows_is_refused(api, user, settings):
    settings.PAPERTRAIL_MAX_FOLLOWS = 1
    assert create(api, kind="category", value="cs.CL").status_code == 201
    response = create(api, kind="category", value="cs.LG")
    assert response.status_code == 400 and "non_field_errors" in response.json()["errors"]
    assert Follow.objects.filter(user=user).count() == 1


def test_patch_changes_what_is_given_and_rematches(api, user):
    harvest(record("2611.00001", categories=["cs.CL"]), record("2611.00002", categories=["cs.CV"]), at=ago(days=1))
    follow_id = create(api, kind="category", value="cs.CL", name="NLP").json()["id"]
    assert trail_arxiv_ids(user) == ["2611.00001"]
    response = api.patch(f"{FOLLOWS}{follow_id}/", {"value": "cs.CV", "muted": False, "name": "Vision"}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["value"] == "cs.CV" and body["name"] == "Vision" and body["delivery"] == "trail"
    assert trail_arxiv_ids(user) == ["2611.00002"]
    assert api.patch(f"{FOLLOWS}{follow_id}/", {"delivery": "weekly"}, format="json").json()["delivery"] == "weekly"
    refused = api.patch(f"{FOLLOWS}{follow_id}/", {"kind": "query"}, format="json")
    assert refused.status_code == 400 and list(refused.json()["errors"]) == ["kind"]
    empty = api.patch(f"{FOLLOWS}{follow_id}/", {"name": ""}, format="json")
    assert empty.status_code == 400 and list(empty.json()["errors"]) == ["name"]
    assert Follow.objects.get(pk=follow_id).name == "Vision"


def test_delete_removes_the_follow_and_its_cards(api, user):
    harvest(record("2611.00001", categories=["cs.CL"]), at=ago(days=1))
    follow_id = create(api, kind="category", value="cs.CL").json()["id"]
    assert api.delete(f"{FOLLOWS}{follow_id}/").status_code == 204
    assert not Follow.objects.filter(pk=follow_id).exists() and not cards(user)
    assert api.delete(f"{FOLLOWS}{follow_id}/").status_code == 404
    chinese = api.get(f"{FOLLOWS}{follow_id}/", HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    assert chinese["errors"] == {"follow_id": ["你没有这个 id 的关注。"]}
    english = api.get(f"{FOLLOWS}{follow_id}/").json()
    assert english["detail"] == "follow_id: You have no follow with this id."


def test_the_preview_counts_7_and_30_days_and_lists_the_latest_five(api, user, monkeypatch):
    harvest(*(record(f"2611.0001{n}", categories=["cs.CL"]) for n in range(3)), at=ago(days=20))
    harvest(*(record(f"2611.0002{n}", categories=["cs.CL"]) for n in range(4)), at=ago(days=3))
    harvest(record("2611.00030", categories=["cs.CV"]), at=ago(days=1))
    body = api.get(f"{FOLLOWS}preview/?kind=category&value=cs.CL").json()
    assert body["last_7_days"] == 4 and body["last_30_days"] == 7
    assert body["last_7_days_capped"] is False and body["last_30_days_capped"] is False
    assert len(body["recent"]) == 5 and {paper["arxiv_id"] for paper in body["recent"][:4]} == {
        f"2611.0002{n}" for n in range(4)
    }
    # The library's card, field for field; `close` belongs to a search's ranking alone.
    assert set(body["recent"][0]) == set(api.get("/api/v1/papers/").json()["results"][0]) - {"close"}
    filters = api.get(f"{FOLLOWS}preview/?kind=filters&category=cs.CV").json()
    assert filters["last_7_days"] == 1 and filters["recent"][0]["arxiv_id"] == "2611.00030"
    author = api.get(f"{FOLLOWS}preview/?kind=author&value=Ada Lovelace&value=A. Lovelace").json()
    assert author["last_30_days"] == 8
    monkeypatch.setattr(follow_selectors, "PREVIEW_COUNT_CAP", 5)
    capped = api.get(f"{FOLLOWS}preview/?kind=category&value=cs.CL").json()
    assert (capped["last_7_days"], capped["last_7_days_capped"]) == (4, False)
    assert (capped["last_30_days"], capped["last_30_days_capped"]) == (5, True)
    assert not Follow.objects.exists()


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("kind=category&value=cs.XX", "value"),
        ("kind=venue&value=x", "kind"),
        ("kind=query&value=the", "value"),
        ("kind=filters&ai=maybe", "value.ai"),
        ("kind=filters", "value"),
        ("kind=author&value=Ada%00Lovelace", "value"),
        ("kind=category&value=cs.CL&include_revisions=perhaps", "include_revisions"),
        ("kind=topic", "description"),
        ("kind=topic&description=diffusion&threshold=9", "threshold"),
        ("kind=topic&examples=2611.99999", "examples"),
    ],
)
def test_preview_errors_name_the_parameter(api, query, field):
    response = api.get(f"{FOLLOWS}preview/?{query}")
    assert response.status_code == 400 and list(response.json()["errors"]) == [field]


def test_follows_need_credentials(client_api, db):
    for path in (FOLLOWS, f"{FOLLOWS}preview/?kind=category&value=cs.CL", f"{FOLLOWS}1/"):
        assert client_api.get(path).status_code == 401
    assert client_api.post(FOLLOWS, {"kind": "category", "value": "cs.CL"}, format="json").status_code == 401
