"""/api/v1/me/channels/ and the /me/ page's channels: owner-only, a bad
parameter is a 400 naming it, and the secret (webhook address, bot token) is
stored sealed and never comes back: not in the API, the page, the admin or
the logs."""

from __future__ import annotations

import logging

import pytest
from django.test import Client
from django.utils import timezone

from accounts.channels.models import Channel, ChannelSend
from accounts.channels.secrets import unseal
from accounts.channels.sending import send_channels
from accounts.follows.services import follow_create
from accounts.models import User
from tests.accounts.alerts.world import day_of_papers, follows
from tests.accounts.channels.world import PATHS, TELEGRAM_TOKEN, stand_in, webhook_url
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db
HOOK = "https://open.feishu.cn/open-apis/bot/v2/hook/0f1e2d3c-secret-hook"
SIGNING_SECRET = "fsSignSecret3k2j9Qw"
NTFY_TOKEN = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"
DINGTALK_SECRET = "SEC" + "4f2a" * 16
DINGTALK_HOOK = "https://oapi.dingtalk.com/robot/send?access_token=ding-hook"
SECRETS = ("secret-hook", SIGNING_SECRET, DINGTALK_SECRET, NTFY_TOKEN, TELEGRAM_TOKEN)


@pytest.fixture
def alice(db) -> User:
    return User.objects.create_user("alice", email="alice@example.org", password="x", is_staff=True, is_superuser=True)


@pytest.fixture
def api(client_api, alice):
    client_api.force_authenticate(alice)
    return client_api


def _create(api, **body):
    return api.post("/api/v1/me/channels/", body, format="json")


def test_a_channel_is_created_with_its_secret_sealed_and_never_shown(api, alice, settings):
    settings.CHANNEL_ANY_HOST = False
    answer = _create(
        api, kind="feishu", name="Lab group", url=HOOK, signing_secret=SIGNING_SECRET, rhythm="daily", top_n=3
    )
    assert answer.status_code == 201, answer.content
    channel = Channel.objects.get()
    assert answer.json()["target_host"] == "open.feishu.cn" and answer.json()["id"] == channel.pk
    assert all(secret not in channel.secret_encrypted for secret in SECRETS)
    assert unseal(channel.secret_encrypted) == {"url": HOOK, "signing_secret": SIGNING_SECRET}
    telegram = _create(api, kind="telegram", token=TELEGRAM_TOKEN, chat_id="@papertrail_lab")
    ntfy = _create(api, kind="ntfy", url="https://ntfy.sh/papertrail-lab", token=NTFY_TOKEN)
    assert telegram.status_code == ntfy.status_code == 201
    assert unseal(Channel.objects.get(kind="ntfy").secret_encrypted)["token"] == NTFY_TOKEN
    for response in (
        answer,
        telegram,
        ntfy,
        api.get("/api/v1/me/channels/"),
        api.get(f"/api/v1/me/channels/{channel.pk}/"),
        api.patch(f"/api/v1/me/channels/{channel.pk}/", {"paused": True}, format="json"),
    ):
        assert response.status_code in (200, 201)
        assert all(secret not in response.content.decode() for secret in SECRETS)
    page = Client()
    page.force_login(alice)
    for path in ("/me/", f"/admin/accounts/channel/{channel.pk}/change/", "/admin/accounts/channel/"):
        body = page.get(path).content.decode()
        assert "Lab group" in body, path
        assert "gAAAA" not in body and all(secret not in body for secret in SECRETS), path


def test_the_logs_never_hold_the_secret(replay_server, settings, alice, caplog):
    server = stand_in(replay_server, settings)
    follows(alice)
    day_of_papers()
    url = webhook_url(server, "webhook")
    Channel.objects.all().delete()
    api_client = Client()
    api_client.force_login(alice)
    response = api_client.post(
        "/api/v1/me/channels/", {"kind": "webhook", "url": url, "rhythm": "daily"}, content_type="application/json"
    )
    assert response.status_code == 201
    signed = {"kind": "dingtalk", "url": webhook_url(server, "dingtalk"), "signing_secret": DINGTALK_SECRET}
    response = api_client.post("/api/v1/me/channels/", signed | {"rhythm": "daily"}, content_type="application/json")
    assert response.status_code == 201
    server.queue(PATHS["webhook"], Reply(status=500, body=b"down"))
    server.queue(PATHS["dingtalk"], Reply(status=500, body=b"down"))
    with caplog.at_level(logging.DEBUG):
        run = send_channels(now=timezone.now())
    assert run.retry == 2 and caplog.records
    errors = " ".join(ChannelSend.objects.values_list("error", flat=True))
    (sent,) = server.requests_to(PATHS["dingtalk"])
    for secret in ("json-secret", "dingtalk-secret-token", DINGTALK_SECRET, sent.param("sign")):
        assert secret not in caplog.text and secret not in errors


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "carrier-pigeon", "url": HOOK}, "kind"),
        ({"kind": "slack", "url": HOOK}, "url"),  # a Slack webhook is on hooks.slack.com
        ({"kind": "webhook", "url": "http://10.0.0.1/hook"}, "url"),
        ({"kind": "webhook", "url": "ftp://example.org/hook"}, "url"),
        ({"kind": "feishu", "url": HOOK, "rhythm": "hourly"}, "rhythm"),
        ({"kind": "feishu", "url": HOOK, "top_n": 0}, "top_n"),
        ({"kind": "feishu", "url": HOOK, "top_n": "many"}, "top_n"),
        ({"kind": "feishu", "url": HOOK, "follow": 999999}, "follow"),
        ({"kind": "telegram", "token": "not-a-token", "chat_id": "-100123"}, "token"),
        ({"kind": "telegram", "token": TELEGRAM_TOKEN, "chat_id": "my chat"}, "chat_id"),
        ({"url": HOOK}, "kind"),
        # A signing secret or token for a kind that takes none, or not as the provider gives it.
        ({"kind": "webhook", "url": "https://hooks.example.org/a", "signing_secret": SIGNING_SECRET}, "signing_secret"),
        (
            {"kind": "telegram", "token": TELEGRAM_TOKEN, "chat_id": "-100123", "signing_secret": SIGNING_SECRET},
            "signing_secret",
        ),
        ({"kind": "feishu", "url": HOOK, "signing_secret": "short"}, "signing_secret"),
        ({"kind": "dingtalk", "url": DINGTALK_HOOK, "signing_secret": SIGNING_SECRET}, "signing_secret"),  # SEC…
        ({"kind": "feishu", "url": HOOK, "token": NTFY_TOKEN}, "token"),
        ({"kind": "ntfy", "url": "https://ntfy.sh/lab", "token": "not-a-token"}, "token"),
        ({"kind": "ntfy", "url": "https://phil:pw@ntfy.sh/lab", "token": NTFY_TOKEN}, "token"),
        ({"kind": "slack", "url": "https://hooks.slack.com/services/T/B/x", "chat_id": "-100123"}, "chat_id"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(api, settings, body, field):
    settings.CHANNEL_ANY_HOST = False
    answer = _create(api, **body)
    assert answer.status_code == 400
    assert field in answer.json()["errors"], answer.json()
    assert all(secret not in answer.content.decode() for secret in SECRETS)
    assert not Channel.objects.exists()


def test_another_users_follow_cannot_be_a_channels_follow(api, settings):
    bob = User.objects.create_user("bob", password="x")
    theirs = follow_create(user=bob, kind="category", value={"code": "cs.LG"})
    settings.CHANNEL_ANY_HOST = False
    answer = _create(api, kind="feishu", url=HOOK, follow=theirs.pk)
    assert answer.status_code == 400 and "follow" in answer.json()["errors"]


def test_another_users_channel_is_a_404_on_every_route(api, alice, client_api):
    channel = _create(api, kind="webhook", url="https://hooks.example.org/alice").json()
    bob = User.objects.create_user("bob", password="x")
    client_api.force_authenticate(bob)
    base = f"/api/v1/me/channels/{channel['id']}/"
    assert client_api.get(base).status_code == 404
    assert client_api.patch(base, {"paused": True}, format="json").status_code == 404
    assert client_api.post(base + "test/").status_code == 404
    assert client_api.delete(base).status_code == 404
    assert client_api.get("/api/v1/me/channels/").json() == []
    page = Client()
    page.force_login(bob)
    for action in ("test", "pause", "resume", "delete"):
        assert page.post(f"/me/channels/{channel['id']}/{action}/").status_code == 404
    assert Channel.objects.filter(pk=channel["id"], paused_at__isnull=True).exists()


def test_the_owner_tests_pauses_resumes_and_deletes(api, alice, django_capture_on_commit_callbacks):
    channel = _create(api, kind="webhook", url="https://hooks.example.org/alice").json()
    base = f"/api/v1/me/channels/{channel['id']}/"
    with django_capture_on_commit_callbacks() as queued:
        assert api.post(base + "test/").status_code == 202
    assert len(queued) == 1  # the test message, queued for the channels worker
    assert api.patch(base, {"paused": True}, format="json").json()["paused"] is True
    assert api.patch(base, {"paused": "maybe"}, format="json").status_code == 400
    assert api.patch(base, {"paused": False}, format="json").json()["paused"] is False
    assert api.delete(base).status_code == 204
    assert api.get(base).status_code == 404


def test_the_me_page_adds_a_channel_and_names_a_bad_field(alice, settings, django_capture_on_commit_callbacks):
    settings.CHANNEL_ANY_HOST = False
    page = Client()
    page.force_login(alice)
    with django_capture_on_commit_callbacks() as queued:
        answer = page.post("/me/channels/", {"kind": "feishu", "name": "Lab", "url": HOOK, "rhythm": "weekly"})
    assert answer.status_code == 302 and answer["Location"].endswith("/me/#channels")
    assert len(queued) == 1  # "send a test message" when added
    channel = Channel.objects.get()
    assert (channel.name, channel.rhythm, channel.user_id) == ("Lab", "weekly", alice.pk)
    shown = page.get("/me/").content.decode()
    assert 'id="channels"' in shown and "open.feishu.cn" in shown and "secret-hook" not in shown
    assert 'name="signing_secret" type="password"' in shown
    bad = page.post("/me/channels/", {"kind": "slack", "url": HOOK}, follow=True).content.decode()
    assert "url:" in bad and Channel.objects.count() == 1
    # A signed bot: the form's signing secret is sealed with the address; a kind without signing names it.
    signed = {"kind": "dingtalk", "url": DINGTALK_HOOK, "signing_secret": DINGTALK_SECRET, "token": "", "chat_id": ""}
    assert page.post("/me/channels/", signed).status_code == 302
    assert unseal(Channel.objects.get(kind="dingtalk").secret_encrypted)["signing_secret"] == DINGTALK_SECRET
    unsigned = {"kind": "wecom", "url": "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k", "signing_secret": "x"}
    bad = page.post("/me/channels/", unsigned, follow=True).content.decode()
    assert "signing_secret:" in bad and Channel.objects.count() == 2 and DINGTALK_SECRET not in bad
