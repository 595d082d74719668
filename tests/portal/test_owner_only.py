"""Every user-owned object is reachable by its owner only. The URL patterns
are enumerated from papertrail.urls (pages, accounts, API, admin), so a new
route is covered the day it is added: a parameter naming an owned object
(OWNED) is filled with user A's object and tried by user B (session and
token) and by an anonymous client with every method; one with an id-like
parameter that is neither owned nor public (PUBLIC) fails the
classification test until it is listed."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import resolve_url
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.converters import IntConverter

from accounts.alerts.links import alert_settings_for, feed_secret_rotate, rating_token, unsubscribe_token
from accounts.alerts.models import AlertSettings, AlertUnsubscribe
from accounts.channels.services import channel_create
from accounts.follows.models import Exclusion, Follow
from accounts.follows.services import exclusion_create, follow_create
from accounts.groups.services import group_create, invite_accept, invite_create
from accounts.models import ApiToken, User
from accounts.recommend.models import NotInterested, Rating, Recommendation
from accounts.recommend.services import picks_record, rating_set
from accounts.records.models import Record, RecordTag, Tag
from accounts.records.services import record_save
from accounts.services import api_token_create
from accounts.trail.models import ReaderMatch, TrailReadMark, TrailState
from digests.models import Ask
from harvest.models import Paper
from tests.accounts.conftest import ago, card_of, harvest, record

pytestmark = pytest.mark.django_db

SECRET = "A-private"  # in the names of A's objects: no answer to B or to anyone may contain it

# Parameter names that name an object of one user, and how the test finds user A's.
OWNED: dict[str, Callable[[dict[str, Any]], Any]] = {
    "follow_id": lambda objs: objs["follow"].pk,
    "item_id": lambda objs: objs["item"].paper_id,
    "trail_item_id": lambda objs: objs["item"].paper_id,
    "token_id": lambda objs: objs["token"].pk,
    "exclusion_id": lambda objs: objs["exclusion"].pk,
    "recommendation_id": lambda objs: objs["recommendation"].pk,
    "ask_id": lambda objs: objs["ask"].pk,
    # A lab group A owns, its member C, its invitation link and its follow (tests/portal/test_group_routes.py
    # tries them as a member, a removed member and the owner as well).
    "group_id": lambda objs: objs["group"].pk,
    "member_id": lambda objs: objs["group_member"].pk,
    "invite_id": lambda objs: objs["group_invite"].pk,
    "group_follow_id": lambda objs: objs["group_follow"].pk,
    "group_channel_id": lambda objs: objs["group_channel"].pk,
    "channel_id": lambda objs: objs["channel"].pk,
}
# Routes where a public-looking parameter names the user's own object: a
# record is "my record of this paper". Filled with the paper A saved (and B did not).
OWNED_BY_ROUTE: dict[str, Callable[[dict[str, Any]], Any]] = {
    "api:record_detail": lambda objs: objs["record"].paper.arxiv_id,
    "api:rating_detail": lambda objs: objs["rating"].paper.arxiv_id,
}
# Parameters of public things (the library) with a value to fill them with
# when they appear next to an owned one.
PUBLIC: dict[str, Callable[[dict[str, Any]], Any]] = {
    "arxiv_id": lambda objs: objs["item_paper"].arxiv_id,
    "paper_id": lambda objs: objs["item"].paper_id,
    "kind": lambda objs: "new",
}
# Owner's POSTs that need a body the test does not send: a 400 naming the
# missing field (or, for leaving, saying the owner cannot leave) shows the view was reached.
OWNER_NEEDS_A_BODY = {"portal:group_rename", "portal:group_follow_new", "portal:group_leave", "api:group_trail_read"}
# Credentials in the path (a feed secret, a signed unsubscribe or rating token): such a
# route answers whoever holds the credential, signed in or not, so it is tried
# with other users' and made-up credentials instead (test_credential_routes_...).
CREDENTIALS = {"secret", "token"}
# Links meant to be passed on: a group's invitation link lets whoever signs in
# and opens it join (tests/portal/test_group_routes.py tries it expired,
# revoked and altered), so it is no one's credential.
SHARED_LINKS = {"portal:group_join"}
# Staff-only: the admin, where an ordinary user or an anonymous client is sent to the admin's sign-in.
STAFF_NAMESPACES = {"admin"}
# Routes that refuse another user's object without a 404, answering as for an
# id that names nothing (the object untouched, nothing of it shown). Each
# entry says why; once a route gives 404 the test asks for its removal.
NOT_YET_404: dict[str, str] = {}
METHODS = ("get", "post", "put", "patch", "delete")
OUT_OF_BOUNDS = (404, 405)  # 405: the route has no such method, whatever the id
# A credential route whose refusal is not a 404: an alert's rating link that
# is not valid (or expired) is a 400 page saying so.
CREDENTIAL_REFUSALS = {"portal:rating_link": (400, 405)}


@dataclass(frozen=True)
class Route:
    route: str  # the pattern as written, for messages
    name: str | None  # namespaced name, for reverse()
    namespaces: tuple[str, ...]
    params: dict[str, bool]  # parameter -> takes ids (int converter or an id-like name)

    @property
    def is_api(self) -> bool:
        return "api" in self.namespaces

    def owned(self) -> list[str]:
        if self.name in OWNED_BY_ROUTE:
            return list(self.params)
        return [name for name in self.params if name in OWNED]


def _id_like(name: str, converter: Any) -> bool:
    return isinstance(converter, IntConverter) or name in ("id", "pk") or name.endswith(("_id", "_pk"))


def _pattern_params(pattern: Any) -> dict[str, Any]:
    converters = getattr(pattern, "converters", {})
    return {name: converters.get(name) for name in pattern.regex.groupindex}


def _walk(
    resolver: URLResolver, prefix: str = "", namespaces: tuple[str, ...] = (), inherited: dict | None = None
) -> Iterator[Route]:
    """Every pattern under `resolver`, with the parameters of the includes above it."""
    for entry in resolver.url_patterns:
        params = {**(inherited or {}), **_pattern_params(entry.pattern)}
        if isinstance(entry, URLResolver):
            inner = (*namespaces, entry.namespace) if entry.namespace else namespaces
            yield from _walk(entry, prefix + str(entry.pattern), inner, params)
        elif isinstance(entry, URLPattern):
            name = ":".join((*namespaces, entry.name)) if entry.name else None
            yield Route(
                prefix + str(entry.pattern),
                name,
                namespaces,
                {param: _id_like(param, converter) for param, converter in params.items()},
            )


ROUTES = list(_walk(get_resolver()))
CREDENTIAL_ROUTES = [r for r in ROUTES if CREDENTIALS & set(r.params) and r.name not in SHARED_LINKS]
OWNED_ROUTES = [
    r for r in ROUTES if r.owned() and not STAFF_NAMESPACES & set(r.namespaces) and r not in CREDENTIAL_ROUTES
]
STAFF_ROUTES = [r for r in ROUTES if STAFF_NAMESPACES & set(r.namespaces) and any(r.params.values())]


def test_every_id_parameter_is_classified_as_owned_or_public():
    unclassified = [
        f"{route.route} ({name})"
        for route in ROUTES
        if not STAFF_NAMESPACES & set(route.namespaces)
        for name, id_like in route.params.items()
        if id_like and name not in OWNED and name not in PUBLIC
    ]
    assert unclassified == [], "list each parameter in OWNED (a user's object) or PUBLIC in this module"
    # The walk finds what it must: the owned routes of the API and of the account pages.
    names = {route.name for route in OWNED_ROUTES}
    assert {
        "api:follow_detail",
        "api:trail_dismiss",
        "accounts:token_revoke",
        "api:recommendation_not_interested",
        "portal:recommendation_open",
        "portal:recommendation_not_interested",
        "portal:recommendation_save",
        "portal:ask_detail",
        "portal:ask_delete",
        "portal:ask_save",
        "api:ask_detail",
        "api:rating_detail",
    } <= names
    assert set(OWNED_BY_ROUTE) <= names
    assert set(NOT_YET_404) <= names
    assert {route.name for route in CREDENTIAL_ROUTES} == {
        "portal:feed_trail",
        "portal:feed_follow",
        "portal:unsubscribe",
        "portal:rating_link",
    }


def _url(route: Route, objs: dict[str, Any]) -> str:
    values = {}
    for name in route.params:
        source = OWNED_BY_ROUTE.get(route.name or "") or OWNED.get(name) or PUBLIC.get(name)
        assert source is not None, f"{route.route}: give {name} a value in OWNED or PUBLIC"
        values[name] = source(objs)
    return _fill(route, values)


def _fill(route: Route, values: dict[str, Any]) -> str:
    if route.name:
        return reverse(route.name, kwargs=values)
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), route.route)


def _objects(user: User, *, mark: str, saves: str, author: str = "Ada Lovelace") -> dict[str, Any]:
    # An author follow matching the card's paper, so that the routes taking a card
    # and a follow together ("not this person") have a pair that belongs together.
    follow = follow_create(user=user, kind="author", value={"author": author}, name=f"{mark} follow")
    token, secret = api_token_create(user=user, name=f"{mark} token")
    exclusion = exclusion_create(user=user, kind="query", value=f"{mark.lower().replace('-', '')}word")
    saved, _created = record_save(
        user=user, paper=Paper.objects.get(arxiv_id=saves), tags=[f"{mark} tag"], note=f"{mark} note"
    )
    tag = Tag.objects.get(user=user, name=f"{mark} tag")
    return {"follow": follow, "token": token, "secret": secret, "exclusion": exclusion, "record": saved, "tag": tag}


def _snapshot(user: User) -> list:
    return [
        list(model.objects.filter(user=user).order_by("pk").values())
        for model in (
            Follow,
            TrailState,
            ReaderMatch,
            TrailReadMark,
            ApiToken,
            Exclusion,
            Record,
            Tag,
            RecordTag,
            AlertSettings,
            AlertUnsubscribe,
            Recommendation,
            NotInterested,
            Rating,
            Ask,
        )
    ]


@pytest.fixture
def world(db) -> dict[str, Any]:
    """A's follow, token, exclusion and a trail card (a paper by Ada Lovelace,
    two days old); B with objects of its own."""
    a = User.objects.create_user("alice", password="x")
    b = User.objects.create_user("bob", password="x")
    harvest(record("2611.00001"), record("2611.00002"), at=ago(days=2))
    objs = _objects(a, mark=SECRET, saves="2611.00001")
    objs["item"] = card_of(a, "2611.00001")
    objs["item_paper"] = Paper.objects.get(arxiv_id="2611.00001")
    # A's recommendation of the card's paper, explained by a paper A saved.
    harvest(record("2611.00003"), at=ago(days=3))
    saved = Paper.objects.get(arxiv_id="2611.00003")
    record_save(user=a, paper=saved)
    objs["recommendation"] = Recommendation.objects.create(
        user=a,
        paper=objs["item_paper"],
        score=1.0,
        reasons={"neighbours": [[saved.pk, 0.5]], "terms": ["lovelace"]},
        event_at=ago(days=2),
    )
    # A's question to the library, its answer citing the card's paper (stored as the ask service stores one).
    objs["ask"] = Ask.objects.create(
        user=a,
        question=f"{SECRET} question",
        language="en",
        cache_key="owner-only-test",
        retrieved=[{"arxiv_id": "2611.00001", "version": 1}],
        answer={
            "synthesis": f"{SECRET} answer",
            "points": [
                {"text": "A point [arXiv:2611.00001 v1]", "citations": [{"arxiv_id": "2611.00001", "version": 1}]}
            ],
        },
    )
    # A's chat channel (its name carries the secret mark; its webhook is never shown to anyone).
    objs["channel"] = channel_create(
        user=a, kind="webhook", name=f"{SECRET} channel", url="https://hooks.example.org/a-private-hook"
    )
    # A's thumbs up on the card's paper, which B has not rated.
    objs["rating"], _created = rating_set(user=a, paper=objs["item_paper"], value=Rating.Value.UP)
    # B follows another author: a card's id is its paper's, so B must have no card of A's card's paper.
    _objects(b, mark="B-own", saves="2611.00002", author="Grace Hopper")
    objs["b_secret"] = _objects(b, mark="B-more", saves="2611.00002", author="Grace Hopper")["secret"]
    assert card_of(b, "2611.00001") is None
    # A's lab group, with a member C (not B), an invitation link and a follow of its own.
    objs["group"] = group_create(owner=a, name=f"{SECRET} group")
    objs["group_invite"], token = invite_create(group=objs["group"], by=a)
    objs["group_member"] = User.objects.create_user("carol", password="x")
    invite_accept(user=objs["group_member"], token=token)
    objs["group_follow"] = follow_create(group_id=objs["group"].pk, kind="category", value={"code": "cs.LG"})
    objs["group_channel"] = channel_create(
        group=objs["group"], kind="slack", url="https://hooks.slack.com/services/T0/B0/group-secret-hook"
    )
    objs.update(a=a, b=b)
    return objs


def _send(client: Client, method: str, url: str):
    if method == "get":
        return client.get(url)
    return getattr(client, method)(url, data="{}", content_type="application/json")


def _login_redirect(response, url: str) -> bool:
    return response.status_code == 302 and response.url == redirect_to_login(url, resolve_url(settings.LOGIN_URL)).url


@pytest.mark.parametrize("route", OWNED_ROUTES, ids=lambda r: r.name or r.route)
def test_another_user_and_anonymous_get_nothing_and_the_owner_gets_it(route, world):
    url = _url(route, world)
    before = _snapshot(world["a"])
    b_session = Client()
    b_session.force_login(world["b"])
    b_token = Client(HTTP_AUTHORIZATION=f"Bearer {world['b_secret']}")
    clients = {"B by session": b_session, "B by token": b_token, "anonymous": Client()}
    refused_by_b: dict[str, int] = {}
    for who, client in clients.items():
        for method in METHODS:
            response = _send(client, method, url)
            status = response.status_code
            assert SECRET not in response.content.decode(errors="replace"), (who, method, url)
            signed_in = who == "B by session" or (who == "B by token" and route.is_api)
            if signed_in:
                refused_by_b[method] = status
                if route.name in NOT_YET_404:
                    assert status in (*OUT_OF_BOUNDS, 302), (who, method, url, status)
                else:
                    assert status in OUT_OF_BOUNDS, (who, method, url, status)
            else:
                assert status in (401, 403, *OUT_OF_BOUNDS) or _login_redirect(response, url), (
                    who,
                    method,
                    url,
                    status,
                )
    assert _snapshot(world["a"]) == before, f"{url}: B or an anonymous client changed A's objects"
    supported = [method for method, status in refused_by_b.items() if status != 405]
    assert supported, f"{url}: no method reached the view"
    if route.name in NOT_YET_404:
        assert 404 not in refused_by_b.values(), f"{route.name} gives 404 now: remove it from NOT_YET_404"
    _owner_gets_it(route, url, world)


def _owner_gets_it(route: Route, url: str, world: dict[str, Any]) -> None:
    a_session = Client()
    a_session.force_login(world["a"])
    owners = [a_session]
    if route.is_api:
        owners.append(Client(HTTP_AUTHORIZATION=f"Bearer {world['secret']}"))
    for client in owners:
        response = client.get(url)
        if response.status_code == 405:
            response = _send(client, "post", url)
            if response.status_code == 405:  # a route that only deletes: once, by the first owner's client
                response = _send(client, "delete", url)
                assert response.status_code == 204, (url, response.status_code)
                return
            # 202: a queued action (a chat channel's test message).
            reached = (200, 201, 202, 204, 302, 400) if route.name in OWNER_NEEDS_A_BODY else (200, 201, 202, 204, 302)
            assert response.status_code in reached, (url, response.status_code)
        else:
            # 200, or a page that sends the owner on (opening a card goes to its paper).
            redirected = response.status_code == 302 and not _login_redirect(response, url)
            assert response.status_code == 200 or redirected, (url, response.status_code)


@pytest.mark.parametrize("route", STAFF_ROUTES, ids=lambda r: r.name or r.route)
def test_staff_routes_send_everyone_else_to_the_admin_sign_in(route, world):
    url = _fill(route, {name: world["follow"].pk for name in route.params})
    b_session = Client()
    b_session.force_login(world["b"])
    for client in (b_session, Client()):
        for method in ("get", "post"):
            response = _send(client, method, url)
            assert response.status_code == 302 and response.url.startswith(reverse("admin:login")), (url, method)


# Routes of the caller's own data that take no id at all (export and import
# of the research record): each reads or writes the caller's objects only.
# B's answer must hold nothing of A's, A's objects stay as they were, and an
# anonymous client is refused.
OWN_DATA_ROUTES = {
    "api:records_export": ["get"],
    "api:records_import": ["post"],
    "portal:records_export": ["get"],
    "portal:records_import": ["post"],
}


def test_every_own_data_route_is_listed():
    found = {route.name for route in ROUTES if route.name and "records" in route.name and not route.params}
    assert {"api:records_export", "api:records_import", "portal:records_export", "portal:records_import"} <= found


@pytest.mark.parametrize("name", sorted(OWN_DATA_ROUTES))
def test_own_data_routes_give_nobody_else_anything_of_the_owners(name, world):

    paper = Paper.objects.get(arxiv_id="2611.00001")
    record_save(user=world["a"], paper=paper, tags=[f"{SECRET} tag"], note=f"{SECRET} note")
    url = reverse(name)
    before = [_snapshot(world["a"]), list(Record.objects.filter(user=world["a"]).values())]
    b_session = Client()
    b_session.force_login(world["b"])
    b_token = Client(HTTP_AUTHORIZATION=f"Bearer {world['b_secret']}")
    clients = {"B by session": b_session, "anonymous": Client()}
    if name.startswith("api:"):
        clients["B by token"] = b_token
    for who, client in clients.items():
        for method in OWN_DATA_ROUTES[name]:
            if method == "get":
                responses = [client.get(url, {"format": kind}) for kind in ("bibtex", "ris", "csljson", "json")]
            elif name.startswith("api:"):
                responses = [client.post(url, {"ids": ["2611.00001"]}, content_type="application/json")]
            else:
                responses = [client.post(url, {"text": "2611.00001"})]
            for response in responses:
                assert SECRET not in response.content.decode(errors="replace"), (who, url)
                if who == "anonymous":
                    to_sign_in = response.status_code == 302 and response.url.startswith(
                        resolve_url(settings.LOGIN_URL) + "?next="
                    )
                    assert response.status_code in (401, 403) or to_sign_in, (url, who)
                else:
                    assert response.status_code == 200, (who, url, response.status_code)
    assert [_snapshot(world["a"]), list(Record.objects.filter(user=world["a"]).values())] == before


# The picks page and API take no id: each offers the caller's own day of
# papers and stores the caller's own picks.
PICKS_ROUTES = ("api:picks", "portal:trail_picks")


def test_every_picks_route_is_listed():
    assert {route.name for route in ROUTES if route.name and "picks" in route.name} == set(PICKS_ROUTES)


@pytest.mark.parametrize("name", PICKS_ROUTES)
def test_picks_routes_show_and_store_the_callers_own_picks_only(name, on_a_listing_day, world):
    """On a listing day, whatever the clock: the day's papers offered depend on it (a
    Sunday's small hours in Beijing offered none of the world's papers)."""
    a, b = world["a"], world["b"]
    picked = Paper.objects.get(arxiv_id="2611.00002")
    picks_record(user=a, arxiv_ids=[picked.arxiv_id])
    url = reverse(name)
    before = _snapshot(a)
    b_session = Client()
    b_session.force_login(b)
    clients = {"B by session": b_session, "anonymous": Client()}
    if name.startswith("api:"):
        clients["B by token"] = Client(HTTP_AUTHORIZATION=f"Bearer {world['b_secret']}")
    for who, client in clients.items():
        shown = client.get(url)
        assert SECRET not in shown.content.decode(errors="replace"), (who, url)
        if who == "anonymous":
            assert shown.status_code in (401, 403) or _login_redirect(shown, url), (who, url)
            continue
        assert shown.status_code == 200, (who, url)
        # A's pick of a paper B is offered too is not B's.
        if name.startswith("api:"):
            offered = {item["paper"]["arxiv_id"]: item["picked"] for item in shown.json()["results"]}
            assert offered.get(picked.arxiv_id) is False, (who, offered)
        else:
            page = shown.content.decode()
            # Offered to B (who saved it: marked so), never marked as picked.
            assert 'data-pick="2611.00002"' in page and "data-picked" not in page, who
    if name.startswith("api:"):
        stored = b_session.post(url, {"papers": [picked.arxiv_id]}, content_type="application/json")
        assert stored.status_code == 201
    else:
        assert b_session.post(url, {"papers": [picked.arxiv_id]}).status_code == 302
    refused = Client().post(url, {"papers": [picked.arxiv_id]})
    assert refused.status_code in (401, 403) or _login_redirect(refused, url)
    assert _snapshot(a) == before
    assert Rating.objects.filter(user=b, paper=picked, source=Rating.Source.PICK).exists()


def _credential_url(route: Route, values: dict[str, Any]) -> str:
    return _fill(route, {name: values[name] for name in route.params})


@pytest.mark.parametrize("route", CREDENTIAL_ROUTES, ids=lambda r: r.name)
def test_credential_routes_answer_their_owner_only_and_404_for_any_other_credential(route, world):
    """A feed secret or an unsubscribe token of another user, a rotated or
    made-up one, or another user's follow id under one's own secret: 404 for
    everyone, by every method (400 for a rating link), with nothing of A's in
    the answer."""
    a, b = world["a"], world["b"]
    a_follow = world["follow"]
    b_secret = alert_settings_for(b).feed_secret
    old_a_secret = alert_settings_for(a).feed_secret
    feed_secret_rotate(user=a)
    a_secret = alert_settings_for(a).feed_secret
    foreign = [
        {"secret": b_secret, "follow_id": a_follow.pk, "token": unsubscribe_token(user_id=b.pk, follow_id=a_follow.pk)},
        {"secret": old_a_secret, "follow_id": a_follow.pk, "token": unsubscribe_token(user_id=a.pk)[:-3] + "abc"},
        {"secret": "made-up-secret", "follow_id": a_follow.pk, "token": "bm9uZQ.made-up"},
    ]
    if route.name == "portal:feed_trail":
        foreign = foreign[1:]  # B's own secret with no follow id is B's own feed
    paper = world["item_paper"]
    if route.name == "portal:rating_link":
        foreign[1]["token"] = rating_token(user_id=a.pk, paper_id=paper.pk, value=1)[:-3] + "abc"
    refused = CREDENTIAL_REFUSALS.get(route.name, OUT_OF_BOUNDS)
    before = _snapshot(a)
    b_session = Client()
    b_session.force_login(b)
    for values in foreign:
        url = _credential_url(route, values)
        for client in (Client(), b_session):
            for method in METHODS:
                response = _send(client, method, url)
                assert response.status_code in refused, (url, method, response.status_code)
                assert SECRET not in response.content.decode(errors="replace"), (url, method)
    assert _snapshot(a) == before
    owner = {
        "secret": a_secret,
        "follow_id": a_follow.pk,
        "token": unsubscribe_token(user_id=a.pk, follow_id=a_follow.pk),
    }
    if route.name == "portal:rating_link":
        owner["token"] = rating_token(user_id=a.pk, paper_id=paper.pk, value=-1)
    response = Client().get(_credential_url(route, owner))
    assert response.status_code == 200
    assert _snapshot(a) == before  # the link's GET only asks
    if route.name == "portal:rating_link":
        assert paper.title in response.content.decode()  # the public paper A's own link names
    elif route.name != "portal:feed_trail":
        assert SECRET in response.content.decode()  # A's own follow, to A's own credential


def test_resubscribing_another_users_follow_is_404(world):
    b_session = Client()
    b_session.force_login(world["b"])
    response = b_session.post(reverse("accounts:alerts_resubscribe"), {"follow": world["follow"].pk})
    assert response.status_code == 404
