"""`/healthz`: whether this web process can serve, for load balancers and
container health checks. It names each dependency and says up or down, never
an address or a credential; 503 when the database (without which no page
works) is down, 200 otherwise, with `degraded` when Redis or the broker is."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from portal.health import dependency_states


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = dependency_states()
    status = "down" if not checks["database"] else ("ok" if all(checks.values()) else "degraded")
    body = {"status": status, **{name: "up" if up else "down" for name, up in checks.items()}}
    return JsonResponse(body, status=503 if status == "down" else 200)
