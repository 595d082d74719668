"""The signed-in user's follows under /api/v1/me/follows/: thin views over
accounts' services and selectors. Another user's follow is a 404, the same
answer as an id that names nothing. The trail is in portal/api/trail.py."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.follows.models import Follow
from accounts.follows.selectors import follow_list, follow_preview
from accounts.follows.services import follow_create, follow_delete, follow_update, max_follows
from accounts.follows.types import (
    DEFAULT_THRESHOLD,
    FILTER_KEYS,
    MAX_DESCRIPTION,
    MAX_EXAMPLES,
    MAX_THRESHOLD,
    MIN_THRESHOLD,
    FollowDefinition,
)
from accounts.trail.selectors import trail_unread_counts
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.parameters import PAPER_FILTER_PARAMETERS
from portal.api.schema import ERROR_RESPONSES, NOT_FOUND_RESPONSE
from portal.api.serializers.me import (
    FollowListSerializer,
    FollowSerializer,
    FollowWriteSerializer,
    PreviewSerializer,
    domain_error_field,
)
from portal.selectors import paper_cards

MAX_ID = 2**63 - 1
OWN_NOT_FOUND = OpenApiResponse(NOT_FOUND_RESPONSE.response, description="You have nothing with this id.")
FOLLOW_ID_PARAMETER = OpenApiParameter(
    "follow_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of one of your follows."
)
BOOL_TEXT = {"1": True, "true": True, "0": False, "false": False}


def bool_param(request: Request, name: str, default: bool) -> bool:
    raw = request.query_params.get(name, "").strip().lower()
    if raw == "":
        return default
    if raw not in BOOL_TEXT:
        raise ParameterError({name: [_("Use 1/0 or true/false.")]})
    return BOOL_TEXT[raw]


def _domain_errors(kind: str, error: ValidationError) -> ParameterError:
    errors: dict[str, list[str]] = {}
    for key, messages in error.message_dict.items():
        errors.setdefault(domain_error_field(kind, key), []).extend(messages)
    return ParameterError(errors)


def _definition(kind: str, given: Any) -> FollowDefinition:
    """The API's value, validated and compiled; a 400 naming the API's field."""
    try:
        return FollowDefinition.from_api(kind, given)
    except ValidationError as exc:
        raise _domain_errors(kind, exc) from None


def _own_follow(request: Request, follow_id: int) -> Follow:
    follow = Follow.objects.filter(user=request.user, pk=follow_id).first() if follow_id <= MAX_ID else None
    if follow is None:
        raise NotFoundParameter({"follow_id": [_("You have no follow with this id.")]})
    return follow


def _follow_data(follow: Follow, user) -> dict:
    return FollowSerializer(follow, context={"unread": trail_unread_counts(user=user).by_follow}).data


class FollowListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_follows_list",
        summary="Your follows",
        description="Every follow of the signed-in user, oldest first, each with its unread trail cards.",
        responses={200: OpenApiResponse(FollowListSerializer, description="Your follows."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        follows = follow_list(user=request.user)
        unread = trail_unread_counts(user=request.user).by_follow
        data = {"count": len(follows), "limit": max_follows(), "results": follows}
        return Response(FollowListSerializer(data, context={"unread": unread}).data)

    @extend_schema(
        operation_id="me_follows_create",
        summary="Follow something",
        description="Follow a category (`cs.CL`, or an archive such as `cs`), an author (a list of the name's "
        "spellings, the name first), a keyword query (the library's query syntax) or a saved library view (an "
        "object of the library's filter parameters). The last days of the library are matched at once into the "
        "trail. Errors name the field: `value` (or `value.<filter>` for filters), `name`, `non_field_errors` "
        "when the limit of follows is reached.",
        request=FollowWriteSerializer,
        responses={
            201: OpenApiResponse(FollowSerializer, description="The new follow."),
            **ERROR_RESPONSES,
        },
    )
    def post(self, request: Request) -> Response:
        body = FollowWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        kind = data["kind"]
        definition = _definition(kind, data["value"])
        options = {
            key: data[key] for key in ("include_cross_lists", "include_revisions", "muted", "delivery") if key in data
        }
        try:
            follow = follow_create(user=request.user, kind=kind, value=definition, name=data.get("name"), **options)
        except ValidationError as exc:
            raise _domain_errors(kind, exc) from None
        return Response(_follow_data(follow, request.user), status=status.HTTP_201_CREATED)


class FollowDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_follows_retrieve",
        summary="One of your follows",
        description="A follow of the signed-in user with its unread trail cards; 404 for any other id.",
        parameters=[FOLLOW_ID_PARAMETER],
        responses={
            200: OpenApiResponse(FollowSerializer, description="The follow."),
            **ERROR_RESPONSES,
            404: OWN_NOT_FOUND,
        },
    )
    def get(self, request: Request, follow_id: int) -> Response:
        return Response(_follow_data(_own_follow(request, follow_id), request.user))

    @extend_schema(
        operation_id="me_follows_partial_update",
        summary="Change a follow",
        description="Change any of name, value, the options, delivery or muted; the kind stays. When what it "
        "matches changed, its reasons on unread cards are replaced by a fresh match of the last days.",
        parameters=[FOLLOW_ID_PARAMETER],
        request=FollowWriteSerializer(partial=True),
        responses={
            200: OpenApiResponse(FollowSerializer, description="The changed follow."),
            **ERROR_RESPONSES,
            404: OWN_NOT_FOUND,
        },
    )
    def patch(self, request: Request, follow_id: int) -> Response:
        follow = _own_follow(request, follow_id)
        body = FollowWriteSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if "kind" in data and data["kind"] != follow.kind:
            raise ParameterError({"kind": [_("A follow's kind cannot change; create another follow.")]})
        changes = {
            key: data[key]
            for key in ("name", "include_cross_lists", "include_revisions", "muted", "delivery")
            if key in data
        }
        if "value" in data:
            changes["value"] = _definition(follow.kind, data["value"])
        try:
            follow = follow_update(follow=follow, **changes)
        except ValidationError as exc:
            raise _domain_errors(follow.kind, exc) from None
        return Response(_follow_data(follow, request.user))

    @extend_schema(
        operation_id="me_follows_destroy",
        summary="Stop following",
        description="Remove a follow and the trail cards only it had brought (dismissals are kept).",
        parameters=[FOLLOW_ID_PARAMETER],
        responses={204: OpenApiResponse(description="Removed."), **ERROR_RESPONSES, 404: OWN_NOT_FOUND},
    )
    def delete(self, request: Request, follow_id: int) -> Response:
        follow_delete(follow=_own_follow(request, follow_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


PREVIEW_PARAMETERS = [
    OpenApiParameter(
        "kind",
        OpenApiTypes.STR,
        required=True,
        enum=Follow.Kind.values,
        description="The kind of follow to preview: category, author, query, filters or topic.",
    ),
    OpenApiParameter(
        "value",
        {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 20},
        explode=True,
        style="form",
        description="category: the code; query: the query; author: the name, repeated for each spelling. "
        "Not used by filters, which take the library's filter parameters instead, nor by topic.",
    ),
    OpenApiParameter(
        "description",
        {"type": "string", "maxLength": MAX_DESCRIPTION},
        description="topic: the topic in words (English or Chinese).",
    ),
    OpenApiParameter(
        "examples",
        {"type": "array", "items": {"type": "string", "maxLength": 100}, "maxItems": MAX_EXAMPLES},
        explode=True,
        style="form",
        description="topic: an example paper's arXiv id, repeated for each (instead of a description).",
    ),
    OpenApiParameter(
        "threshold",
        {"type": "number", "minimum": MIN_THRESHOLD, "maximum": MAX_THRESHOLD},
        description=f"topic: how close a paper must be, in standard deviations (default {DEFAULT_THRESHOLD}).",
    ),
    *(param for param in PAPER_FILTER_PARAMETERS if param.name in FILTER_KEYS),
    OpenApiParameter(
        "include_cross_lists", OpenApiTypes.BOOL, description="Count cross-listed papers (default 1). 1/0."
    ),
    OpenApiParameter("include_revisions", OpenApiTypes.BOOL, description="Count new versions (default 1). 1/0."),
]


class FollowPreviewView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_follows_preview",
        summary="Preview a follow",
        description="What a follow would have brought before creating it: papers with a matching event in the last "
        "7 and 30 days, and the five most recent. For filters, give the library's filter parameters.",
        parameters=PREVIEW_PARAMETERS,
        responses={200: OpenApiResponse(PreviewSerializer, description="The preview."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        kind = request.query_params.get("kind", "")
        if kind not in Follow.Kind.values:
            raise ParameterError({"kind": [_("Choose one of category, author, query, filters, topic.")]})
        params = request.query_params
        if kind == Follow.Kind.FILTERS:
            raw: Any = {key: params.getlist(key) if key == "category" else params.get(key) for key in FILTER_KEYS}
            raw = {key: val for key, val in raw.items() if val not in (None, [])}
        elif kind == Follow.Kind.AUTHOR:
            raw = params.getlist("value")
        elif kind == Follow.Kind.TOPIC:
            raw = {"description": params.get("description"), "examples": params.getlist("examples")}
            raw = {key: val for key, val in raw.items() if val} | (
                {"threshold": params["threshold"]} if "threshold" in params else {}
            )
        else:
            raw = params.get("value", "")
        try:
            definition = _definition(kind, raw)
        except ParameterError as exc:
            if kind != Follow.Kind.TOPIC:
                raise
            # A topic's preview takes its fields as parameters of their own names.
            raise ParameterError(
                {name.removeprefix("value."): messages for name, messages in exc.errors.items()}
            ) from None
        try:
            preview = follow_preview(
                user=request.user,
                kind=kind,
                value=definition,
                include_cross_lists=bool_param(request, "include_cross_lists", True),
                include_revisions=bool_param(request, "include_revisions", True),
            )
        except ValidationError as exc:
            raise _domain_errors(kind, exc) from None
        data = {
            "last_7_days": preview.last_7_days,
            "last_30_days": preview.last_30_days,
            "last_7_days_capped": preview.last_7_days_capped,
            "last_30_days_capped": preview.last_30_days_capped,
            "recent": paper_cards(preview.recent),
        }
        return Response(PreviewSerializer(data).data)
