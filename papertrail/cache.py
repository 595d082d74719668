"""A Redis cache that degrades instead of failing.

The cache only ever holds what can be computed again (the overview's numbers,
throttle and sign-in counters, bounds of ranked searches), so while Redis is
unreachable every call is served by a per-process memory cache instead, and
Redis is tried again after a pause: pages and the API keep answering, and the
throttles count per process until Redis is back. Every outage is logged once.
"""

from __future__ import annotations

import logging
import time
from functools import wraps

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
_OPERATIONS = (
    "add",
    "get",
    "set",
    "touch",
    "delete",
    "get_many",
    "has_key",
    "incr",
    "set_many",
    "delete_many",
)
# Redis is tried again this long after it failed, so a dead server costs one
# failed connection per process per pause, not one per call.
RETRY_SECONDS = 15.0


class ResilientRedisCache(RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._fallback = LocMemCache(f"fallback-{id(self)}", {"TIMEOUT": params.get("TIMEOUT", 300)})
        self._down_until = 0.0

    @property
    def redis_is_down(self) -> bool:
        return time.monotonic() < self._down_until

    def clear(self) -> None:
        """Both stores: what process memory kept while Redis was away must not
        come back after a clear when Redis goes away again."""
        self._fallback.clear()
        if not self.redis_is_down:
            try:
                RedisCache.clear(self)
            except _UNREACHABLE as exc:
                self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        if not self.redis_is_down:
            logger.warning("Redis unreachable (%s); the cache and the throttles use process memory for now", exc)
        self._down_until = time.monotonic() + RETRY_SECONDS


def _resilient(name: str):
    redis_operation = getattr(RedisCache, name)
    fallback_operation = getattr(LocMemCache, name)

    @wraps(redis_operation)
    def operation(self: ResilientRedisCache, *args, **kwargs):
        if not self.redis_is_down:
            try:
                return redis_operation(self, *args, **kwargs)
            except _UNREACHABLE as exc:
                self._failed(exc)
        return fallback_operation(self._fallback, *args, **kwargs)

    return operation


for _name in _OPERATIONS:
    setattr(ResilientRedisCache, _name, _resilient(_name))
