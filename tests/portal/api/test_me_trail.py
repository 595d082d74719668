"""/api/v1/me/trail/: keyset pages with their filters, items as the paper
list shows papers plus the trail's own fields, read marks, dismissals."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from accounts.follows.services import follow_create
from accounts.trail.services import trail_mark_read
from harvest.models import Paper
from tests.accounts.conftest import ago, card_of, cards, harvest, record

pytestmark = pytest.mark.django_db
TRAIL = "/api/v1/me/trail/"


@pytest.fixture
def api(client_api, token):
    client_api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client_api


@pytest.fixture
def trail(user):
    """Five cs.LG papers a day apart (00001 newest), 00003 read and then
    revised an hour ago (so its card reopens as a revision), and one cs.CL
    paper matched by an author follow."""
    lg = follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="ML")
    author = follow_create(user=user, kind="author", value={"author": "Grace Hopper"}, name="Grace")
    for day in range(5, 0, -1):
        harvest(record(f"2611.0000{day}"), at=ago(days=day))
    harvest(record("2611.00009", categories=["cs.CL"], authors=["Grace Hopper"]), at=ago(hours=30))
    revised = card_of(user, "2611.00003")
    trail_mark_read(user=user, item_ids=[revised.paper_id])
    harvest(record("2611.00003", versions=2), at=ago(hours=1))
    return {"lg": lg.pk, "author": author.pk}


def ids(body) -> list[str]:
    return [item["paper"]["arxiv_id"] for item in body["results"]]


def test_items_carry_the_paper_version_reasons_and_marks(api, user, trail):
    body = api.get(TRAIL).json()
    assert ids(body) == ["2611.00003", "2611.00001", "2611.00009", "2611.00002", "2611.00004", "2611.00005"]
    assert body["next"] is None
    first = body["results"][0]
    # The library's cards, field for field; `close` belongs to a search's ranking alone.
    listed = api.get("/api/v1/papers/").json()["results"]
    papers = {paper["arxiv_id"]: {k: v for k, v in paper.items() if k != "close"} for paper in listed}
    assert first["paper"] == papers["2611.00003"]
    assert first["version"]["number"] == 2 and first["kind"] == "revision" and first["event_kinds"] == ["revision"]
    assert first["read"] is False and first["dismissed"] is False
    assert first["id"] == card_of(user, "2611.00003").paper_id
    (match,) = first["matches"]
    assert match["follow"] == trail["lg"] and match["follow_name"] == "ML" and match["follow_kind"] == "category"
    assert match["version"] == 2 and isinstance(match["reason"], dict)
    grace = body["results"][2]
    assert grace["kind"] == "new" and [m["follow"] for m in grace["matches"]] == [trail["author"]]


def test_pages_follow_the_cursor_and_filters_combine(api, trail):
    first = api.get(f"{TRAIL}?page_size=2").json()
    assert ids(first) == ["2611.00003", "2611.00001"]
    second = api.get(first["next"]).json()
    assert ids(second) == ["2611.00009", "2611.00002"]
    assert ids(api.get(f"{TRAIL}?kind=revision").json()) == ["2611.00003"]
    assert "2611.00003" not in ids(api.get(f"{TRAIL}?kind=new").json())
    assert ids(api.get(f"{TRAIL}?follow={trail['author']}").json()) == ["2611.00009"]
    by_follow = api.get(f"{TRAIL}?follow={trail['lg']}&page_size=2").json()
    assert ids(api.get(by_follow["next"]).json()) == ["2611.00002", "2611.00004"]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("kind=old", "kind"),
        ("unread=maybe", "unread"),
        ("follow=abc", "follow"),
        ("follow=99999999999999999999999", "follow"),
        ("cursor=bm90IGEgY3Vyc29y", "cursor"),
        ("cursor=MjAyNi0xMS0wMVQwMDowMDowMHw5OTk5OTk5OTk5OTk5OTk5OTk5OTk5", "cursor"),
        ("page_size=0", "page_size"),
    ],
)
def test_bad_parameters_are_named(api, trail, query, field):
    response = api.get(f"{TRAIL}?{query}")
    assert response.status_code == 400 and list(response.json()["errors"]) == [field]


def test_another_users_follow_is_no_filter(api, trail, django_user_model):
    other = django_user_model.objects.create_user("bob", password="x")
    theirs = follow_create(user=other, kind="category", value={"code": "cs.LG"}, name="theirs")
    response = api.get(f"{TRAIL}?follow={theirs.pk}")
    assert response.status_code == 400 and list(response.json()["errors"]) == ["follow"]


def test_marking_read_by_ids_and_up_to_a_cursor_or_a_time(api, user, trail, django_user_model):
    arxiv_ids = dict(Paper.objects.values_list("pk", "arxiv_id"))
    items = {arxiv_ids[card.paper_id]: card.paper_id for card in cards(user)}
    other = django_user_model.objects.create_user("bob", password="x")
    follow_create(user=other, kind="category", value={"code": "cs.LG"}, name="theirs")
    # A card's id is its paper's: the other reader's card of the paper marked is theirs alone.
    theirs = card_of(other, "2611.00001")
    assert theirs is not None and theirs.unread
    response = api.post(f"{TRAIL}read/", {"items": [items["2611.00001"], theirs.paper_id]}, format="json")
    assert response.json() == {"marked": 1, "unread": 5}
    theirs = card_of(other, "2611.00001")
    assert theirs.unread
    assert ids(api.get(f"{TRAIL}?unread=1").json()) == [
        "2611.00003",
        "2611.00009",
        "2611.00002",
        "2611.00004",
        "2611.00005",
    ]
    read = api.get(TRAIL).json()["results"][1]
    assert read["paper"]["arxiv_id"] == "2611.00001" and read["read"] is True
    # The fourth card is 2611.00002: it and the older ones are marked.
    (cursor,) = parse_qs(urlsplit(api.get(f"{TRAIL}?page_size=4").json()["next"]).query)["cursor"]
    assert api.post(f"{TRAIL}read/", {"up_to": cursor}, format="json").json() == {"marked": 3, "unread": 2}
    time = ago(hours=12).isoformat()
    assert api.post(f"{TRAIL}read/", {"up_to": time}, format="json").json() == {"marked": 1, "unread": 1}
    assert ids(api.get(f"{TRAIL}?unread=true").json()) == ["2611.00003"]
    assert api.get("/api/v1/me/").json()["unread"] == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "non_field_errors"),
        ({"items": [1], "up_to": "2026-11-01T00:00:00Z"}, "non_field_errors"),
        ({"items": ["x"]}, "items"),
        ({"items": [0]}, "items"),
        ({"up_to": "yesterday"}, "up_to"),
        ({"up_to": "2026-11-01T00:00:00"}, "up_to"),
        ({"up_to": "0001-01-01T00:00:00+01:00"}, "up_to"),
    ],
)
def test_read_errors_name_the_field(api, trail, body, field):
    response = api.post(f"{TRAIL}read/", body, format="json")
    assert response.status_code == 400 and list(response.json()["errors"]) == [field]


def test_dismiss_and_undismiss(api, user, trail):
    item = card_of(user, "2611.00001")
    response = api.post(f"{TRAIL}{item.paper_id}/dismiss/")
    assert response.json() == {"id": item.paper_id, "dismissed": True, "unread": 5}
    assert "2611.00001" not in ids(api.get(TRAIL).json())
    assert api.post(f"{TRAIL}{item.paper_id}/dismiss/").json()["dismissed"] is True
    harvest(record("2611.00001", versions=2), at=ago(minutes=10))
    assert "2611.00001" not in ids(api.get(TRAIL).json())
    assert api.post(f"{TRAIL}{item.paper_id}/undismiss/").json() == {
        "id": item.paper_id,
        "dismissed": False,
        "unread": 6,
    }
    assert ids(api.get(TRAIL).json())[1] == "2611.00001"
    for path in (f"{TRAIL}999999/dismiss/", f"{TRAIL}99999999999999999999999/undismiss/"):
        response = api.post(path)
        assert response.status_code == 404 and list(response.json()["errors"]) == ["item_id"]


def test_the_trail_needs_credentials(client_api, db):
    assert client_api.get(TRAIL).status_code == 401
    assert client_api.post(f"{TRAIL}read/", {"items": [1]}, format="json").status_code == 401
