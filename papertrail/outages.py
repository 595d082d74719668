"""When PostgreSQL is unreachable, every page answers 503 with Retry-After and
a short page in the reader's language, and the API answers 503 JSON, instead
of a bare 500.

Django turns an exception anywhere below into a 500 response before an outer
middleware sees it, so a receiver of `got_request_exception` marks the request
when the exception was the database's, and the outermost middleware swaps
that 500 for the 503.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import translation

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 30
_MARK = "_papertrail_database_unavailable"


@receiver(got_request_exception)
def mark_database_outage(sender, request: HttpRequest | None = None, **kwargs) -> None:
    error = sys.exc_info()[1]
    if request is not None and isinstance(error, OperationalError | InterfaceError):
        setattr(request, _MARK, True)
        logger.error("database unavailable: %s", error)


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 500 or not getattr(request, _MARK, False):
            return response
        return unavailable_response(request)


def unavailable_response(request: HttpRequest) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        response = JsonResponse(
            {"detail": "The database is unavailable; try again shortly.", "code": "unavailable"}, status=503
        )
    else:
        language = translation.get_language() or "zh-hans"
        html = render_to_string("503.html", {"chinese": language.startswith("zh")})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response
