"""Chat channels against a local stand-in of every provider (tests/replay_server.py):
each path answers as the provider's documentation says a success looks, and
records what it received."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from datetime import datetime

from accounts.channels.models import Channel
from accounts.channels.services import channel_create
from accounts.models import User
from tests.replay_server import ReplayServer, Reply, Request

TELEGRAM_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
# Each kind's webhook path at the stand-in, shaped as the provider's own.
PATHS = {
    "feishu": "/open-apis/bot/v2/hook/feishu-secret-key",
    "lark": "/open-apis/bot/v2/hook/lark-secret-key",
    "wecom": "/cgi-bin/webhook/send",
    "dingtalk": "/robot/send",
    "slack": "/services/T0000/B0000/slack-secret",
    "telegram": f"/bot{TELEGRAM_TOKEN}/sendMessage",
    "discord": "/api/webhooks/1234/discord-secret",
    "ntfy": "/",
    "webhook": "/hook/json-secret",
}
QUERIES = {"wecom": "?key=wecom-secret-key", "dingtalk": "?access_token=dingtalk-secret-token"}


def _json(body: dict, status: int = 200) -> Reply:
    return Reply(status=status, body=json.dumps(body).encode(), content_type="application/json")


# Success as each provider answers it.
SUCCESS = {
    "feishu": _json({"code": 0, "msg": "success", "data": {}}),
    "lark": _json({"code": 0, "msg": "success", "data": {}}),
    "wecom": _json({"errcode": 0, "errmsg": "ok"}),
    "dingtalk": _json({"errcode": 0, "errmsg": "ok"}),
    "slack": Reply(status=200, body=b"ok", content_type="text/html"),
    "telegram": _json({"ok": True, "result": {"message_id": 1, "chat": {"id": -1001234567890}}}),
    "discord": Reply(status=204, body=b"", content_type="text/plain"),
    "ntfy": _json({"id": "sPs71M8A2T", "time": 1700000000, "event": "message", "topic": "papertrail-lab"}),
    "webhook": _json({}),
}


def webhook_url(server: ReplayServer, kind: str) -> str:
    if kind == "ntfy":
        return f"{server.url}/papertrail-lab"
    return server.url + PATHS[kind] + QUERIES.get(kind, "")


def stand_in(server: ReplayServer, settings) -> ReplayServer:
    settings.CHANNEL_TELEGRAM_API = server.url
    for kind, path in PATHS.items():
        server.default(path, SUCCESS[kind])
    return server


def add_channel(user: User, server: ReplayServer, kind: str, **options) -> Channel:
    if kind == "telegram":
        return channel_create(user=user, kind=kind, token=TELEGRAM_TOKEN, chat_id="-1001234567890", **options)
    return channel_create(user=user, kind=kind, url=webhook_url(server, kind), **options)


def received(server: ReplayServer, kind: str) -> list[dict]:
    return [json.loads(request.body) for request in server.requests_to(PATHS[kind])]


# The signing secrets the stand-in's bots are set up with (a DingTalk one starts with SEC).
SIGNING_SECRETS = {
    "feishu": "fsSignSecret3k2j9Qw",
    "lark": "larkSignSecret7xPq2",
    "dingtalk": "SEC" + "4f2a" * 16,
}
# What each answers to a signature it does not accept (docs/channels.md cites them).
FEISHU_SIGNATURE_ERROR = {
    "code": 19021,
    "data": {},
    "msg": "sign match fail or timestamp is not within one hour from current time",
}
DINGTALK_SIGNATURE_ERROR = {"errcode": 310000, "errmsg": "sign not match"}


def _hmac_base64(key: str, message: str) -> str:
    return base64.b64encode(hmac.new(key.encode(), message.encode(), hashlib.sha256).digest()).decode()


def signature_checked(server: ReplayServer, kind: str, *, secret: str, clock: datetime) -> None:
    """The stand-in checks each message's signature as the provider documents
    it, recomputed from `secret` and the timestamp received, and refuses a
    timestamp more than an hour from its own clock (`clock`): Feishu and Lark
    read `timestamp` and `sign` in the body (seconds; the key is
    "timestamp\\nsecret", the message empty), DingTalk in the query
    (milliseconds; the key is the secret, the message "timestamp\\nsecret")."""

    def answer(request: Request) -> Reply:
        if kind == "dingtalk":
            timestamp, sign = request.param("timestamp") or "", request.param("sign") or ""
            expected, seconds, refusal = _hmac_base64(secret, f"{timestamp}\n{secret}"), 1000, DINGTALK_SIGNATURE_ERROR
        else:
            body = json.loads(request.body)
            timestamp, sign = str(body.get("timestamp", "")), str(body.get("sign", ""))
            expected, seconds, refusal = _hmac_base64(f"{timestamp}\n{secret}", ""), 1, FEISHU_SIGNATURE_ERROR
        fresh = timestamp.isdigit() and abs(int(timestamp) / seconds - clock.timestamp()) <= 3600
        return SUCCESS[kind] if fresh and hmac.compare_digest(sign, expected) else _json(refusal)

    server.responder(PATHS[kind], answer)
