"""OpenAPI pieces shared by the API views: the error body, the error responses
every operation can give, and a post-processing hook that documents the
Retry-After header of 429 responses."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, naming the parameter at fault when there is one.")
    code = serializers.CharField(help_text="A stable code, e.g. invalid_parameter, not_found, throttled.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Messages per parameter at fault.",
    )


ERROR_RESPONSES = {
    400: OpenApiResponse(
        ErrorSerializer,
        description="A parameter cannot be used (invalid filter value, unknown sort, malformed id, damaged cursor, "
        "a token in the URL); `errors` names it.",
    ),
    401: OpenApiResponse(ErrorSerializer, description="The token or session is invalid, or is needed and missing."),
    429: OpenApiResponse(ErrorSerializer, description="Too many requests; retry after `Retry-After` seconds."),
}
NOT_FOUND_RESPONSE = OpenApiResponse(
    ErrorSerializer, description="Nothing in the library matches the path parameter named in `errors`."
)

RETRY_AFTER_HEADER = {
    "description": "Seconds to wait before the next request is allowed.",
    "schema": {"type": "integer", "minimum": 0},
}


def document_responses(result, generator, request, public):
    """Postprocessing hook: every 429 response carries Retry-After, and a
    paginated list's 200 (which drf-spectacular wraps itself, without a
    description) is described."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            responses = operation.get("responses", {})
            if "429" in responses:
                responses["429"].setdefault("headers", {})["Retry-After"] = RETRY_AFTER_HEADER
            if "200" in responses and not responses["200"].get("description"):
                responses["200"]["description"] = "A page of results; follow `next` for the following one."
    return result
