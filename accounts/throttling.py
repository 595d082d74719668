"""Throttling of sign-in attempts: after LOGIN_ATTEMPTS_LIMIT failed attempts
from one client address, or against one username, within
LOGIN_ATTEMPTS_WINDOW seconds, further attempts are refused with 429 and
Retry-After until the window ends. Counters live in the cache (Redis in
production), keyed by hashes so that no username is stored in clear."""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

_KEY = "accounts:login-failures:{kind}:{digest}"


def _keys(request: HttpRequest, username: str) -> list[str]:
    address = request.META.get("REMOTE_ADDR", "")
    keys = [_KEY.format(kind="ip", digest=hashlib.sha256(address.encode()).hexdigest()[:32])]
    if username:
        digest = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
        keys.append(_KEY.format(kind="user", digest=digest))
    return keys


def retry_after(request: HttpRequest, username: str) -> int | None:
    """Seconds until a new attempt is allowed, or None when one is allowed now."""
    limit = settings.LOGIN_ATTEMPTS_LIMIT
    waits = []
    for key, value in cache.get_many(_keys(request, username)).items():
        count, started = value
        remaining = int(started + settings.LOGIN_ATTEMPTS_WINDOW - time.time()) + 1
        if count >= limit and remaining > 0:
            waits.append(remaining)
        elif remaining <= 0:
            cache.delete(key)
    return max(waits) if waits else None


def record_failure(request: HttpRequest, username: str) -> None:
    window = settings.LOGIN_ATTEMPTS_WINDOW
    now = time.time()
    for key in _keys(request, username):
        count, started = cache.get(key) or (0, now)
        cache.set(key, (count + 1, started), timeout=max(1, int(started + window - now) + 1))


def clear_failures(request: HttpRequest, username: str) -> None:
    """A successful sign-in forgets this username's failures (the address keeps its own)."""
    cache.delete_many(_keys(request, username)[1:])
