"""Chat channels against a local stand-in of every provider (tests/replay_server.py):
each path answers as the provider's documentation says a success looks, and
records what it received."""

from __future__ import annotations

import json

from accounts.channels.models import Channel
from accounts.channels.services import channel_create
from accounts.models import User
from tests.replay_server import ReplayServer, Reply

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
