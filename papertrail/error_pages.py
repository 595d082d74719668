"""The site's own error pages under DEBUG too (`make run` runs with DEBUG on):
Django's debug pages list every URL pattern and speak English, so a reader
who mistypes an address or opens a missing paper there sees 404.html, and a
bad request, a refusal or a crash the site's 400, 403 and 500 pages; the
traceback of a crash goes to the log (var/log/web.log under `make run`).
With DEBUG off this does nothing: Django's handlers render the same pages."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import Resolver404, is_valid_path
from django.views import defaults

logger = logging.getLogger("django.request")


class SiteErrorPagesMiddleware:
    """Placed after the locale, authentication and preference middleware, so
    the pages speak the reader's language; before nothing that a 404 needs
    (CommonMiddleware, outside it, still redirects `/papers` to `/papers/`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if settings.DEBUG and not is_valid_path(request.path_info, getattr(request, "urlconf", None)):
            return defaults.page_not_found(request, Resolver404({"path": request.path_info}))
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not settings.DEBUG:
            return None
        if isinstance(exception, Http404):
            return defaults.page_not_found(request, exception)
        if isinstance(exception, PermissionDenied):
            return defaults.permission_denied(request, exception)
        if isinstance(exception, BadRequest | SuspiciousOperation):
            return defaults.bad_request(request, exception)
        logger.error("Internal Server Error: %s", request.path, exc_info=exception)
        return defaults.server_error(request)
