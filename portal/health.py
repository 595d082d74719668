"""Whether the services the site depends on answer: the database, the cache
(Redis, when configured) and the Celery broker. For `/healthz` and the
sources page; it names states, never addresses or credentials."""

from __future__ import annotations

from django.core.cache import cache
from django.db import DatabaseError, connection

from papertrail.celery import app


def database_up() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        return False


def cache_up() -> bool:
    cache.set("healthz", "ok", 30)
    # The resilient Redis cache answers from memory while Redis is down and says so.
    return cache.get("healthz") == "ok" and not getattr(cache, "redis_is_down", False)


def broker_up() -> bool:
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=0, timeout=1)
        return True
    except Exception:  # any failure to reach the broker, whatever its transport raises
        return False


def dependency_states() -> dict[str, bool]:
    return {"database": database_up(), "cache": cache_up(), "broker": broker_up()}
