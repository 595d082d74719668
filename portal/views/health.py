"""`/healthz`: whether this web process can serve, for load balancers and
container health checks. It names each dependency and says up or down, never
an address or a credential; 503 when the database (without which no page
works) is down, 200 otherwise, with `degraded` when Redis or the broker is."""

from __future__ import annotations

from django.core.cache import cache
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from papertrail.celery import app


def _database_up() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except DatabaseError:
        return False


def _cache_up() -> bool:
    cache.set("healthz", "ok", 30)
    # The resilient Redis cache answers from memory while Redis is down and says so.
    return cache.get("healthz") == "ok" and not getattr(cache, "redis_is_down", False)


def _broker_up() -> bool:
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=0, timeout=1)
        return True
    except Exception:  # any failure to reach the broker, whatever its transport raises
        return False


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _database_up(), "cache": _cache_up(), "broker": _broker_up()}
    status = "down" if not checks["database"] else ("ok" if all(checks.values()) else "degraded")
    body = {"status": status, **{name: "up" if up else "down" for name, up in checks.items()}}
    return JsonResponse(body, status=503 if status == "down" else 200)
