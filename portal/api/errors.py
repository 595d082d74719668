"""One JSON shape for every API error:

    {"detail": "category: x is not an arXiv category code such as cs.LG.",
     "code": "invalid_parameter",
     "errors": {"category": ["x is not an arXiv category code such as cs.LG."]}}

`errors` names each parameter at fault (absent when no parameter is); `detail`
repeats the first message prefixed by its parameter, for a quick read.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from django.utils.encoding import force_str
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback


class ParameterError(exceptions.APIException):
    """A request parameter that cannot be used (400), with messages per parameter."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid_parameter"
    default_detail = _("Invalid parameter.")

    def __init__(self, errors: Mapping[str, list], *, status_code: int | None = None, code: str | None = None):
        self.errors = {name: [_strip_prefix(name, force_str(m)) for m in messages] for name, messages in errors.items()}
        if status_code is not None:
            self.status_code = status_code
        name, messages = next(iter(self.errors.items()))
        super().__init__(detail=_prefixed(name, messages[0]), code=code or self.default_code)


class NotFoundParameter(ParameterError):
    """A path parameter that names nothing in the library (404)."""

    status_code = status.HTTP_404_NOT_FOUND
    default_code = "not_found"


def _prefixed(name: str, message: str) -> str:
    return message if name == "non_field_errors" else f"{name}: {message}"


def _strip_prefix(name: str, message: str) -> str:
    """Messages shared with the pages may start with their parameter ("cursor: …",
    or "cursor:…" in Chinese); the API names it once, in its own way."""
    for colon in (":", "\uff1a"):
        if message.startswith(f"{name}{colon}"):
            return message[len(name) + 1 :].lstrip()
    return message


def form_errors(form_errors: Mapping[str, list]) -> dict[str, list[str]]:
    """A Django form's errors keyed by parameter ("__all__" -> "non_field_errors")."""
    return {
        ("non_field_errors" if name == "__all__" else name): [force_str(m) for m in messages]
        for name, messages in form_errors.items()
    }


def exception_handler(exc, context):
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(force_str(exc) or None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None  # a bug: Django's 500 handling logs it
    headers = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(exc.wait) + (0 if float(exc.wait).is_integer() else 1))
    body = {"detail": "", "code": "error"}
    parameter = getattr(exc, "parameter", None)
    if isinstance(exc, ParameterError):
        body.update(detail=force_str(exc.detail), code=exc.detail.code, errors=exc.errors)
    elif parameter:
        message = force_str(exc.detail)
        body.update(detail=_prefixed(parameter, message), code=exc.detail.code, errors={parameter: [message]})
    elif isinstance(exc.detail, dict):
        errors = {name: [force_str(m) for m in (v if isinstance(v, list) else [v])] for name, v in exc.detail.items()}
        name, messages = next(iter(errors.items()), ("non_field_errors", [force_str(exc.default_detail)]))
        body.update(detail=_prefixed(name, messages[0]), code=exc.default_code, errors=errors)
    elif isinstance(exc.detail, list):
        body.update(detail=" ".join(force_str(m) for m in exc.detail), code=exc.default_code)
    else:
        body.update(detail=force_str(exc.detail), code=getattr(exc.detail, "code", exc.default_code))
    set_rollback()
    return Response(body, status=exc.status_code, headers=headers)


@csrf_exempt
def json_not_found(request, *args, **kwargs):
    """Any other path under the API: a JSON 404 (excluded from the schema).
    CSRF-exempt because it changes nothing: a write to a mistyped path gets
    this JSON 404, not the HTML CSRF failure page."""
    return JsonResponse({"detail": "No such API endpoint.", "code": "not_found"}, status=404)
