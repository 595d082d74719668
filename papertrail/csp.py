"""The Content-Security-Policy header on every response: pages, the API, its
docs and the admin. Everything PaperTrail serves comes from this site (KaTeX,
htmx and Swagger UI are its own static files), so the policy allows nothing
else; a `<meta>` policy would cover neither the JSON nor the admin."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = settings.PAPERTRAIL_CONTENT_SECURITY_POLICY

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.policy)
        return response
