"""Middleware of the portal's own."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from accounts.trail.selectors import readers_shared


class TrailReadersMiddleware:
    """One trail reader per user for a request: a page and its navigation's
    unread count read the reader's follows, exclusions and mark once."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with readers_shared():
            return self.get_response(request)
