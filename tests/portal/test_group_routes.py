"""Every route of a lab group, enumerated from the URL patterns, tried as an
outsider, a member, a removed member and the owner: a group is reachable by
its members only (404 for anyone else, invite and member routes included),
only its owner manages it (403 for a member), and a removed member loses
access at once. Then the invitation link's pages and the API's answers."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.channels.models import Channel
from accounts.channels.services import channel_create
from accounts.follows.models import Follow
from accounts.follows.services import follow_create
from accounts.groups.models import GroupInvite, LabGroup, Membership
from accounts.groups.selectors import invite_link_token
from accounts.groups.services import group_create, invite_accept, invite_create, member_remove
from accounts.models import User
from tests.accounts.conftest import ago, harvest, record
from tests.portal.test_owner_only import METHODS, ROUTES, Route, _fill, _login_redirect, _send

pytestmark = pytest.mark.django_db
SLACK_HOOK = "https://hooks.slack.com/services/T0/B0/lab-secret-hook"
LAB_SIGNING = "SEC" + "9b1c" * 16

GROUP_ROUTES = [r for r in ROUTES if r.name and "group_id" in r.params]
# What a member may do besides reading: mark the group's trail read (and leave, tried on its own).
MEMBER_MAY = {
    ("portal:group_detail", "get"),
    ("portal:group_trail", "get"),
    ("portal:group_trail_read", "post"),
    ("api:group_detail", "get"),
    ("api:group_members", "get"),
    ("api:group_follows", "get"),
    ("api:group_trail", "get"),
    ("api:group_trail_read", "post"),
    ("api:group_channels", "get"),
    ("api:group_channel", "get"),
}
LEAVING = {("portal:group_leave", "post"), ("api:group_member", "delete")}


def test_the_group_routes_are_found():
    names = {route.name for route in GROUP_ROUTES}
    assert len(GROUP_ROUTES) == 29  # 17 pages, 12 API routes
    assert {"portal:group_invite_revoke", "api:group_invites", "api:group_member", "api:group_trail"} <= names


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def lab(db) -> dict[str, Any]:
    owner = User.objects.create_user("owner", password="x")
    members = [User.objects.create_user(name, password="x") for name in ("member", "second", "removed")]
    outsider = User.objects.create_user("outsider", password="x")
    group = group_create(owner=owner, name="Secret lab")
    invite, token = invite_create(group=group, by=owner)
    for user in members:
        invite_accept(user=user, token=token)
    follow = follow_create(group_id=group.pk, kind="category", value={"code": "cs.LG"})
    channel = channel_create(group=group, kind="slack", url=SLACK_HOOK)
    return {
        "channel": channel,
        "owner": owner,
        "member": members[0],
        "second": members[1],
        "removed": members[2],
        "outsider": outsider,
        "group": group,
        "invite": invite,
        "token": token,
        "follow": follow,
    }


def url_of(route: Route, lab: dict[str, Any]) -> str:
    values = {
        "group_id": lab["group"].pk,
        "member_id": lab["second"].pk,
        "invite_id": lab["invite"].pk,
        "group_follow_id": lab["follow"].pk,
        "group_channel_id": lab["channel"].pk,
    }
    return _fill(route, {name: values[name] for name in route.params})


def state(lab: dict[str, Any]) -> list:
    group = lab["group"]
    return [
        list(LabGroup.objects.filter(pk=group.pk).values()),
        list(Membership.objects.filter(group=group).order_by("pk").values()),
        list(GroupInvite.objects.filter(group=group).order_by("pk").values()),
        list(Follow.objects.filter(group=group).order_by("pk").values("pk", "name")),
        list(Channel.objects.filter(group=group).order_by("pk").values("pk", "paused_at", "tested_at")),
    ]


def test_outsiders_a_removed_member_and_anonymous_get_404_or_the_sign_in_everywhere(lab):
    assert client_of(lab["removed"]).get(reverse("portal:group_trail", args=[lab["group"].pk])).status_code == 200
    member_remove(group=lab["group"], user_id=lab["removed"].pk)
    before = state(lab)
    for route in GROUP_ROUTES:
        url = url_of(route, lab)
        for who in ("outsider", "removed"):
            client = client_of(lab[who])
            for method in METHODS:
                response = _send(client, method, url)
                assert response.status_code in (404, 405), (who, method, url, response.status_code)
                assert "Secret lab" not in response.content.decode(), (who, method, url)
        for method in METHODS:
            response = _send(Client(), method, url)
            assert response.status_code in (401, 403, 405) or _login_redirect(response, url), (method, url)
    assert state(lab) == before


def test_a_member_reads_and_marks_but_only_the_owner_manages(lab):
    client = client_of(lab["member"])
    before = state(lab)
    for route in GROUP_ROUTES:
        url = url_of(route, lab)
        for method in METHODS:
            if (route.name, method) in LEAVING:
                continue
            response = _send(client, method, url)
            if (route.name, method) in MEMBER_MAY:
                assert response.status_code in (200, 302, 400), (method, url, response.status_code)
            else:
                assert response.status_code in (403, 405), (method, url, response.status_code)
    assert state(lab) == before
    # Leaving is the member's own: they are out at once.
    response = client.post(reverse("portal:group_leave", args=[lab["group"].pk]))
    assert response.status_code == 302
    assert client.get(reverse("portal:group_detail", args=[lab["group"].pk])).status_code == 404


def test_the_owner_reaches_every_route(lab):
    client = client_of(lab["owner"])
    for route in GROUP_ROUTES:
        response = client.get(url_of(route, lab))
        assert response.status_code in (200, 405), (route.name, response.status_code)
    group_id = lab["group"].pk
    assert client.post(reverse("portal:group_rename", args=[group_id]), {"name": "Renamed"}).status_code == 302
    response = client.post(reverse("portal:group_rename", args=[group_id]), {"name": "  "})
    assert response.status_code == 400
    assert client.delete(reverse("api:group_member", args=[group_id, lab["second"].pk])).status_code == 204
    assert client.delete(reverse("api:group_invite", args=[group_id, lab["invite"].pk])).status_code == 204
    assert client.post(reverse("portal:group_delete", args=[group_id])).status_code == 302
    assert not LabGroup.objects.exists() and not Follow.objects.exists()


# --- the invitation link ----------------------------------------------------------
def test_opening_a_link_shows_the_group_and_joining_is_a_post(lab):
    newcomer = User.objects.create_user("newcomer", password="x")
    client = client_of(newcomer)
    url = reverse("portal:group_join", args=[lab["token"]])
    page = client.get(url)
    assert page.status_code == 200 and "Secret lab" in page.content.decode()
    assert not Membership.objects.filter(user=newcomer).exists()  # a GET writes nothing
    assert client.post(url).url == reverse("portal:group_detail", args=[lab["group"].pk])
    assert Membership.objects.get(user=newcomer).role == "member"
    assert _login_redirect(Client().get(url), url)


def test_an_expired_revoked_or_altered_link_is_a_404(lab):
    client = client_of(User.objects.create_user("newcomer", password="x"))
    expired = GroupInvite.objects.create(
        group=lab["group"], created_by=lab["owner"], nonce="n1", expires_at=timezone.now() - timedelta(seconds=1)
    )
    revoked = GroupInvite.objects.create(
        group=lab["group"],
        created_by=lab["owner"],
        nonce="n2",
        expires_at=timezone.now() + timedelta(days=1),
        revoked_at=timezone.now(),
    )
    tokens = [invite_link_token(expired), invite_link_token(revoked), lab["token"][:-1] + "x", "made-up"]
    for token in tokens:
        url = reverse("portal:group_join", args=[token])
        for method in ("get", "post"):
            response = getattr(client, method)(url)
            assert response.status_code == 404 and "Secret lab" not in response.content.decode(), (token, method)
    assert Membership.objects.filter(group=lab["group"]).count() == 4


def test_the_owner_revokes_a_link_from_the_group_page(lab):
    client = client_of(lab["owner"])
    page = client.get(reverse("portal:group_detail", args=[lab["group"].pk])).content.decode()
    assert reverse("portal:group_join", args=[lab["token"]]) in page
    client.post(reverse("portal:group_invite_revoke", args=[lab["group"].pk, lab["invite"].pk]))
    newcomer = client_of(User.objects.create_user("newcomer", password="x"))
    assert newcomer.post(reverse("portal:group_join", args=[lab["token"]])).status_code == 404
    member_page = client_of(lab["member"]).get(reverse("portal:group_detail", args=[lab["group"].pk]))
    assert lab["token"] not in member_page.content.decode()  # members never see the links


# --- the API ------------------------------------------------------------------------
def test_the_api_makes_lists_renames_and_joins(lab):
    client = client_of(lab["outsider"])
    made = client.post(reverse("api:group_list"), {"name": "Mine"}, content_type="application/json")
    assert made.status_code == 201 and made.json()["role"] == "owner"
    bad = client.post(reverse("api:group_list"), {"name": "   "}, content_type="application/json")
    assert bad.status_code == 400 and "name" in bad.json()["errors"]
    group_id = made.json()["id"]
    invite = client.post(reverse("api:group_invites", args=[group_id]), {"days": 2}, content_type="application/json")
    assert invite.status_code == 201 and invite.json()["url"].endswith(f"/groups/join/{invite.json()['token']}/")
    bad = client.post(reverse("api:group_invites", args=[group_id]), {"days": 99}, content_type="application/json")
    assert bad.status_code == 400 and "days" in bad.json()["errors"]
    joiner = client_of(lab["member"])
    wrong = joiner.post(reverse("api:group_join"), {"token": "nope"}, content_type="application/json")
    assert wrong.status_code == 400 and "token" in wrong.json()["errors"]
    joined = joiner.post(reverse("api:group_join"), {"token": invite.json()["token"]}, content_type="application/json")
    assert joined.status_code == 200 and joined.json()["id"] == group_id
    assert [g["name"] for g in joiner.get(reverse("api:group_list")).json()["results"]] == ["Mine", "Secret lab"]
    renamed = client.patch(
        reverse("api:group_detail", args=[group_id]), {"name": "Ours"}, content_type="application/json"
    )
    assert renamed.json()["name"] == "Ours"
    members = joiner.get(reverse("api:group_members", args=[group_id])).json()
    assert [(m["username"], m["role"]) for m in members["results"]] == [("outsider", "owner"), ("member", "member")]


def test_the_api_group_trail_has_each_members_read_state_and_names_bad_parameters(lab):
    harvest(record("2611.00001"), at=ago(hours=2))
    group_id = lab["group"].pk
    owner, member = client_of(lab["owner"]), client_of(lab["member"])
    url = reverse("api:group_trail", args=[group_id])
    for client in (owner, member):
        assert [c["paper"]["arxiv_id"] for c in client.get(url).json()["results"]] == ["2611.00001"]
    item = member.get(url).json()["results"][0]["id"]
    read = member.post(
        reverse("api:group_trail_read", args=[group_id]), {"items": [item]}, content_type="application/json"
    )
    assert read.json() == {"marked": 1, "unread": 0}
    assert member.get(url, {"unread": "1"}).json()["results"] == []
    assert len(owner.get(url, {"unread": "1"}).json()["results"]) == 1
    for name, value in (("follow", "abc"), ("follow", str(lab["follow"].pk + 1000)), ("kind", "x"), ("cursor", "x")):
        response = member.get(url, {name: value})
        assert response.status_code == 400 and name in response.json()["errors"], (name, value)
    made = owner.post(
        reverse("api:group_follows", args=[group_id]),
        {"kind": "category", "value": "cs.CL", "delivery": "daily"},
        content_type="application/json",
    )
    assert made.status_code == 400 and "delivery" in made.json()["errors"]


def test_the_trail_page_switches_between_mine_and_the_groups_in_chinese(lab):
    harvest(record("2611.00001"), at=ago(hours=2))
    client = client_of(lab["member"])
    mine = client.get(reverse("portal:trail")).content.decode()
    group_url = reverse("portal:group_trail", args=[lab["group"].pk])
    assert 'data-switch="mine"' in mine and f'href="{group_url}"' in mine and "我的" in mine
    shared = client.get(group_url).content.decode()
    assert "Secret lab 的足迹" in shared and "2611.00001" in shared and "你有 1 篇未读" in shared
    assert 'hx-target="#group-trail-cards"' in shared  # marks swap the cards in place
    item = shared.split('data-item="', 1)[1].split('"', 1)[0]
    read = client.post(reverse("portal:group_trail_read", args=[lab["group"].pk]), {"item": item})
    assert read.status_code == 302 and read.url.endswith(f"#t{item}")
    assert "你有 0 篇未读" in client.get(group_url).content.decode()
    assert "你有 1 篇未读" in client_of(lab["owner"]).get(group_url).content.decode()
    # No group, no switch.
    alone = client_of(lab["outsider"]).get(reverse("portal:trail")).content.decode()
    assert "data-trail-switch" not in alone


# --- the group's chat channels --------------------------------------------------------
def test_members_see_the_groups_channels_but_never_their_secret_and_only_the_owner_manages(lab):
    group_id, channel = lab["group"].pk, lab["channel"]
    for who in ("member", "owner"):
        client = client_of(lab[who])
        page = client.get(reverse("portal:group_detail", args=[group_id])).content.decode()
        listed = client.get(reverse("api:group_channels", args=[group_id]))
        assert f'data-channel="{channel.pk}"' in page and "hooks.slack.com" in page
        assert [item["id"] for item in listed.json()] == [channel.pk]
        for text in (page, listed.content.decode()):
            assert "lab-secret-hook" not in text and channel.secret_encrypted not in text
        has_forms = reverse("portal:group_channel_delete", args=[group_id, channel.pk]) in page
        assert has_forms == (who == "owner")
    member = client_of(lab["member"])
    body = {"kind": "slack", "url": SLACK_HOOK}
    assert member.post(reverse("api:group_channels", args=[group_id]), body).status_code == 403
    assert member.post(reverse("portal:group_channel_add", args=[group_id]), body).status_code == 403
    outsider = client_of(lab["outsider"])
    assert outsider.get(reverse("api:group_channels", args=[group_id])).status_code == 404
    assert outsider.post(reverse("api:group_channels", args=[group_id]), body).status_code == 404
    assert Channel.objects.filter(group_id=group_id).count() == 1
    # The owner adds, pauses and deletes; another group's channel id is a 404 here.
    owner = client_of(lab["owner"])
    made = owner.post(reverse("api:group_channels", args=[group_id]), body, content_type="application/json")
    assert made.status_code == 201 and "lab-secret-hook" not in made.content.decode()
    # A signed DingTalk robot takes its signing secret here too, never shown; a Slack webhook takes none.
    channels_url = reverse("api:group_channels", args=[group_id])
    dingtalk = {"kind": "dingtalk", "url": "https://oapi.dingtalk.com/robot/send?access_token=lab"}
    signed = owner.post(channels_url, dingtalk | {"signing_secret": LAB_SIGNING}, content_type="application/json")
    unsigned = owner.post(channels_url, body | {"signing_secret": LAB_SIGNING}, content_type="application/json")
    assert (signed.status_code, unsigned.status_code) == (201, 400) and "signing_secret" in unsigned.json()["errors"]
    for text in (signed.content, unsigned.content, owner.get(channels_url).content):
        assert LAB_SIGNING.encode() not in text
    url = reverse("api:group_channel", args=[group_id, made.json()["id"]])
    assert owner.patch(url, {"paused": True}, content_type="application/json").json()["paused"] is True
    assert owner.delete(url).status_code == 204
    other = group_create(owner=lab["owner"], name="Other lab")
    assert owner.get(reverse("api:group_channel", args=[other.pk, channel.pk])).status_code == 404
    assert Channel.objects.get(pk=channel.pk).paused_at is None
