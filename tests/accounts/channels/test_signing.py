"""Signed bots and protected topics: a Feishu, Lark or DingTalk bot with a
signing secret gets each message signed on the send's clock, and the stand-in
checks it as the provider does (recomputed from the secret and the timestamp
received, an hour either way); a wrong secret or a stale clock is refused and
recorded as a failure that says why. An ntfy channel sends its access token,
or the user and password of its address, as the Authorization header."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest

from accounts.channels.models import Channel, ChannelSend
from accounts.channels.sending import send_channels, send_test
from accounts.channels.services import channel_create
from accounts.channels.transport import SIGNATURE_REFUSED
from tests.accounts.channels.world import (
    PATHS,
    SIGNING_SECRETS,
    _json,
    add_channel,
    received,
    signature_checked,
    webhook_url,
)
from tests.clock import LISTING_DAY_NOON
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.django_db
# The instant the messages are sent at (the sending code's clock), and the providers' own clock.
SEND_AT = LISTING_DAY_NOON + timedelta(minutes=5)
NTFY_TOKEN = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"


@pytest.mark.parametrize("kind", ["feishu", "lark", "dingtalk"])
def test_a_signed_bots_messages_pass_the_providers_check_at_the_send_clock(server, alice, kind):
    secret = SIGNING_SECRETS[kind]
    add_channel(alice, server, kind, rhythm="daily", signing_secret=secret)
    signature_checked(server, kind, secret=secret, clock=SEND_AT)
    run = send_channels(now=SEND_AT)
    assert (run.sent, run.failed) == (1, 0)
    (request,) = server.requests_to(PATHS[kind])
    if kind == "dingtalk":
        assert request.param("timestamp") == str(int(SEND_AT.timestamp()) * 1000)  # milliseconds
        assert request.param("access_token") == "dingtalk-secret-token" and request.param("sign")
        assert set(json.loads(request.body)) == {"msgtype", "actionCard"}  # the body is unchanged
    else:
        body = json.loads(request.body)
        assert body["timestamp"] == str(int(SEND_AT.timestamp()))  # seconds, as a string
        assert body["sign"] and body["msg_type"] == "interactive" and body["card"]["elements"]
    assert secret not in request.body.decode() and secret not in request.path
    assert ChannelSend.objects.get(channel__kind=kind).status == "sent"


@pytest.mark.parametrize(("kind", "code"), [("feishu", 19021), ("dingtalk", 310000)])
def test_a_wrong_signing_secret_is_refused_and_the_message_fails_saying_why(server, alice, kind, code):
    wrong = "SEC" + "0" * 64 if kind == "dingtalk" else "notTheBotsSecret42"
    add_channel(alice, server, kind, rhythm="daily", signing_secret=wrong)
    signature_checked(server, kind, secret=SIGNING_SECRETS[kind], clock=SEND_AT)
    run = send_channels(now=SEND_AT)
    assert (run.sent, run.failed, run.retry) == (0, 1, 0)  # permanent: the same secret would fail again
    send = ChannelSend.objects.get(channel__kind=kind)
    assert send.status == "failed" and f"code {code}" in send.error and SIGNATURE_REFUSED in send.error
    assert wrong not in send.error and SIGNING_SECRETS[kind] not in send.error
    assert Channel.objects.get(kind=kind).failures == 1


def test_a_signature_an_hour_off_the_providers_clock_is_refused(server, alice):
    channel = add_channel(alice, server, "lark", signing_secret=SIGNING_SECRETS["lark"])
    signature_checked(server, "lark", secret=SIGNING_SECRETS["lark"], clock=SEND_AT)
    assert send_test(channel.pk, now=SEND_AT + timedelta(minutes=59)) == "sent"
    assert send_test(channel.pk, now=SEND_AT + timedelta(minutes=61)).startswith("not sent")
    channel.refresh_from_db()
    assert channel.test_ok is False and "code 19021 sign match fail" in channel.test_error
    assert SIGNATURE_REFUSED in channel.test_error


def test_a_bot_without_a_signing_secret_gets_no_signature(server, alice):
    add_channel(alice, server, "feishu", rhythm="daily")
    add_channel(alice, server, "dingtalk", rhythm="daily")
    assert send_channels(now=SEND_AT).sent == 2
    (feishu,) = received(server, "feishu")
    assert "timestamp" not in feishu and "sign" not in feishu
    (dingtalk,) = server.requests_to(PATHS["dingtalk"])
    assert set(dingtalk.query) == {"access_token"}


def test_the_documented_signed_feishu_payload_is_what_the_stand_in_received(server, alice):
    """docs/channels/feishu-signed.json: the card of feishu.json with `timestamp` and `sign` in front."""
    add_channel(alice, server, "feishu", rhythm="daily", top_n=3, signing_secret=SIGNING_SECRETS["feishu"])
    send_channels(now=SEND_AT)
    (payload,) = received(server, "feishu")
    documented = json.loads((PROJECT_ROOT / "docs" / "channels" / "feishu-signed.json").read_text(encoding="utf-8"))
    assert list(documented)[:2] == list(payload)[:2] == ["timestamp", "sign"]
    assert set(documented) == set(payload) == {"timestamp", "sign", "msg_type", "card"}


def _protected_topic(server, authorization: str) -> None:
    """ntfy on a topic only this Authorization may write to (its documented 401 otherwise)."""
    refused = _json({"code": 40101, "http": 401, "error": "unauthorized"}, status=401)
    allowed = _json({"id": "sPs71M8A2T", "event": "message", "topic": "papertrail-lab"})
    server.responder(
        PATHS["ntfy"], lambda request: allowed if request.headers.get("Authorization") == authorization else refused
    )


def test_an_ntfy_access_token_is_sent_as_a_bearer_token(server, alice):
    channel = add_channel(alice, server, "ntfy", token=NTFY_TOKEN)
    open_topic = add_channel(alice, server, "ntfy")
    _protected_topic(server, f"Bearer {NTFY_TOKEN}")
    assert send_test(channel.pk, now=SEND_AT) == "sent"
    assert send_test(open_topic.pk, now=SEND_AT).startswith("not sent")
    open_topic.refresh_from_db()
    assert "HTTP 401" in open_topic.test_error and NTFY_TOKEN not in open_topic.test_error
    first, second = server.requests_to(PATHS["ntfy"])
    assert json.loads(first.body)["topic"] == "papertrail-lab" and "Authorization" not in second.headers


def test_an_ntfy_address_with_a_user_and_password_is_sent_with_basic_auth(server, alice):
    url = webhook_url(server, "ntfy").replace("http://", "http://phil:s3cr%40t@")
    channel = channel_create(user=alice, kind="ntfy", url=url)
    _protected_topic(server, "Basic " + base64.b64encode(b"phil:s3cr@t").decode())
    assert send_test(channel.pk, now=SEND_AT) == "sent"
    (request,) = server.requests_to(PATHS["ntfy"])
    assert json.loads(request.body)["topic"] == "papertrail-lab"
    channel.refresh_from_db()
    assert channel.target_host == "127.0.0.1" and channel.test_error == ""
