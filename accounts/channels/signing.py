"""What a channel's optional second secret adds to each request, reckoned on
the send's own clock (`now`, the one the sending code is given):

- Feishu / Lark bots with signature verification (签名校验): `timestamp`
  (seconds) and `sign` in the body, sign = base64(HMAC-SHA256 keyed with
  "timestamp\\nsecret" over an empty message);
- DingTalk robots with 加签: `timestamp` (milliseconds) and `sign` in the
  webhook's query, sign = base64(HMAC-SHA256 keyed with the secret over
  "timestamp\\nsecret"), URL-encoded;
- ntfy protected topics: `Authorization: Bearer tk_…` (an access token), or
  Basic with the user and password written in the topic's address.

Both providers refuse a timestamp more than an hour from their own clock
(docs/channels.md, "Signed bots and protected topics")."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
from datetime import UTC, datetime, timedelta
from urllib.parse import unquote, urlencode, urlsplit

from accounts.channels.models import Channel
from accounts.channels.types import Request

__all__ = ["SIGNED_KINDS", "dingtalk_sign", "feishu_sign", "signed"]

SIGNED_KINDS = (Channel.Kind.FEISHU, Channel.Kind.LARK, Channel.Kind.DINGTALK)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _hmac_base64(key: str, message: str) -> str:
    return base64.b64encode(hmac.new(key.encode(), message.encode(), hashlib.sha256).digest()).decode()


def feishu_sign(secret: str, timestamp: str) -> str:
    return _hmac_base64(f"{timestamp}\n{secret}", "")


def dingtalk_sign(secret: str, timestamp: str) -> str:
    """The sign before URL-encoding (urlencode below does that, as DingTalk's own sample's quote_plus)."""
    return _hmac_base64(secret, f"{timestamp}\n{secret}")


def signed(kind: str, secret: dict[str, str], request: Request, *, now: datetime) -> Request:
    """`request` with the signature or credentials the channel's secret holds (unchanged without them)."""
    signing_secret = secret.get("signing_secret", "")
    if signing_secret and kind in (Channel.Kind.FEISHU, Channel.Kind.LARK):
        timestamp = str((now - _EPOCH) // timedelta(seconds=1))
        fields = {"timestamp": timestamp, "sign": feishu_sign(signing_secret, timestamp)}
        return dataclasses.replace(request, json=fields | request.json)
    if signing_secret and kind == Channel.Kind.DINGTALK:
        timestamp = str((now - _EPOCH) // timedelta(milliseconds=1))
        query = urlencode({"timestamp": timestamp, "sign": dingtalk_sign(signing_secret, timestamp)})
        joiner = "&" if urlsplit(request.url).query else "?"
        return dataclasses.replace(request, url=f"{request.url}{joiner}{query}")
    if kind == Channel.Kind.NTFY:
        return dataclasses.replace(request, headers=request.headers | _ntfy_authorization(secret))
    return request


def _ntfy_authorization(secret: dict[str, str]) -> dict[str, str]:
    if secret.get("token"):
        return {"Authorization": f"Bearer {secret['token']}"}
    parts = urlsplit(secret["url"])
    if parts.username is None:
        return {}
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return {"Authorization": "Basic " + base64.b64encode(pair.encode()).decode()}
