"""The HTTP hand-off of a channel's message, and each answer sorted into
sent, transient (retry later: timeouts, 5xx, 429, a provider's "too many
requests" code) or permanent (the webhook is gone or refuses the message).
Errors name the host and status, never the URL (it is the secret)."""

from __future__ import annotations

import ipaddress
import logging
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings

from accounts.channels.types import Request

logger = logging.getLogger(__name__)

USER_AGENT = "PaperTrail channels (+https://github.com/papertrail)"
# Providers answer HTTP 200 with an error code in the body.
_BODY_CODES = ("code", "errcode", "StatusCode")
# Feishu 11232 / 9499, WeCom 45009 and DingTalk 130101 mean "too many messages": retry later.
_RATE_CODES = {11232, 9499, 45009, 130101}
# Feishu 19021 and DingTalk 310000: the signature was refused (a wrong signing secret, or a clock an hour off).
_SIGNATURE_CODES = {19021, 310000}
SIGNATURE_REFUSED = "the signature was refused: check the channel's signing secret and this server's clock"


@dataclass
class Outcome:
    sent: bool
    permanent: bool = False
    error: str = ""
    retry_after: float | None = None


def _body_code(response: requests.Response) -> tuple[int, str]:
    if "json" not in response.headers.get("Content-Type", ""):
        return 0, ""
    try:
        body = response.json()
    except ValueError:
        return 0, ""
    if not isinstance(body, dict):
        return 0, ""
    if body.get("ok") is False:  # Telegram
        return int(body.get("error_code") or 400), str(body.get("description", ""))[:200]
    for name in _BODY_CODES:
        if isinstance(body.get(name), int) and body[name] != 0:
            return body[name], str(body.get("msg") or body.get("errmsg") or "")[:200]
    return 0, ""


def _private_address(host: str) -> str | None:
    """The first address of `host` that is not on the public internet (the
    site's own network, loopback, link-local), or None. A plain webhook or an
    ntfy server may be on any host name, and a name can point anywhere."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return None  # the post itself then fails and says so
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%")[0])
        if not address.is_global:
            return str(address)
    return None


def post(request: Request) -> Outcome:
    host = urlsplit(request.url).hostname or "?"
    if not settings.CHANNEL_ANY_HOST and _private_address(host):
        return Outcome(False, permanent=True, error=f"{host}: not a public address")
    try:
        response = requests.post(
            request.url,
            json=request.json,
            timeout=settings.CHANNEL_TIMEOUT_SECONDS,
            headers={"User-Agent": USER_AGENT} | request.headers,
            allow_redirects=False,
        )
    except requests.RequestException as error:
        # The exception's text may hold the URL: only its type is kept.
        return Outcome(False, error=f"{host}: {type(error).__name__}")
    status = response.status_code
    if status == 429 or status >= 500:
        retry_after = response.headers.get("Retry-After", "")
        wait = float(retry_after) if retry_after.replace(".", "", 1).isdigit() else None
        return Outcome(False, error=f"{host}: HTTP {status}", retry_after=wait)
    code, text = _body_code(response)
    reason = f" ({SIGNATURE_REFUSED})" if code in _SIGNATURE_CODES else ""
    if status >= 300:
        return Outcome(False, permanent=True, error=f"{host}: HTTP {status} {response.text[:200]}{reason}")
    if code:
        transient = code in _RATE_CODES or code == 429
        return Outcome(False, permanent=not transient, error=f"{host}: code {code} {text}".strip() + reason)
    return Outcome(True)
