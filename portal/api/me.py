"""The signed-in user's follows and trail under /api/v1/me/: thin views over
accounts' services and selectors. Another user's follow or card is a 404,
the same answer as an id that names nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.follow_values import FILTER_KEYS
from accounts.follows import follow_create, follow_delete, follow_preview, follow_update, max_follows
from accounts.models import Follow, TrailItem
from accounts.selectors import InvalidCursor, decode_cursor, follow_list, trail_page, trail_unread_counts
from accounts.trail import trail_dismiss, trail_mark_read, trail_undismiss
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.pagination import CURSOR_PARAMETER, PAGE_SIZE_PARAMETER, cursor_from, page_size_from
from portal.api.parameters import PAPER_FILTER_PARAMETERS
from portal.api.schema import ERROR_RESPONSES, NOT_FOUND_RESPONSE
from portal.api.serializers.me import (
    DismissResultSerializer,
    FollowListSerializer,
    FollowSerializer,
    FollowValueError,
    FollowWriteSerializer,
    PreviewSerializer,
    TrailPageSerializer,
    TrailReadResultSerializer,
    TrailReadSerializer,
    domain_error_field,
    domain_value,
)
from portal.selectors import paper_cards

MAX_ID = 2**63 - 1
OWN_NOT_FOUND = OpenApiResponse(NOT_FOUND_RESPONSE.response, description="You have nothing with this id.")
FOLLOW_ID_PARAMETER = OpenApiParameter(
    "follow_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of one of your follows."
)
ITEM_ID_PARAMETER = OpenApiParameter(
    "item_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of one of your trail cards."
)
BOOL_TEXT = {"1": True, "true": True, "0": False, "false": False}


def _bool_param(request: Request, name: str, default: bool) -> bool:
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


def _value(kind: str, value: Any) -> dict[str, Any]:
    try:
        return domain_value(kind, value)
    except FollowValueError as exc:
        raise ParameterError({exc.field: [exc.message]}) from None


def _default_name(kind: str, value: dict[str, Any]) -> str:
    if kind == Follow.Kind.CATEGORY:
        return str(value.get("code", ""))
    if kind == Follow.Kind.AUTHOR:
        return str(value.get("author", ""))
    if kind == Follow.Kind.QUERY:
        return str(value.get("q", ""))
    return "; ".join(f"{key}={val}" for key, val in value.items())[:200]


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
        value = _value(kind, data["value"])
        options = {
            key: data[key] for key in ("include_cross_lists", "include_revisions", "muted", "delivery") if key in data
        }
        try:
            follow = follow_create(
                user=request.user, kind=kind, value=value, name=data.get("name", _default_name(kind, value)), **options
            )
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
            changes["value"] = _value(follow.kind, data["value"])
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
        description="The kind of follow to preview: category, author, query or filters.",
    ),
    OpenApiParameter(
        "value",
        {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 20},
        explode=True,
        style="form",
        description="category: the code; query: the query; author: the name, repeated for each spelling. "
        "Not used by filters, which take the library's filter parameters instead.",
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
            raise ParameterError({"kind": [_("Choose one of category, author, query, filters.")]})
        params = request.query_params
        if kind == Follow.Kind.FILTERS:
            raw: Any = {key: params.getlist(key) if key == "category" else params.get(key) for key in FILTER_KEYS}
            raw = {key: val for key, val in raw.items() if val not in (None, [])}
        elif kind == Follow.Kind.AUTHOR:
            raw = params.getlist("value")
        else:
            raw = params.get("value", "")
        value = _value(kind, raw)
        try:
            preview = follow_preview(
                user=request.user,
                kind=kind,
                value=value,
                include_cross_lists=_bool_param(request, "include_cross_lists", True),
                include_revisions=_bool_param(request, "include_revisions", True),
            )
        except ValidationError as exc:
            raise _domain_errors(kind, exc) from None
        data = {
            "last_7_days": preview.last_7_days,
            "last_30_days": preview.last_30_days,
            "recent": paper_cards(preview.recent),
        }
        return Response(PreviewSerializer(data).data)


TRAIL_PARAMETERS = [
    OpenApiParameter("follow", OpenApiTypes.INT, description="Only the cards one of your follows matched (its id)."),
    OpenApiParameter(
        "kind", OpenApiTypes.STR, enum=TrailItem.Kind.values, description="Only new papers or only revisions."
    ),
    OpenApiParameter("unread", OpenApiTypes.BOOL, description="1: only unread cards (default: every card)."),
    CURSOR_PARAMETER,
    PAGE_SIZE_PARAMETER,
]


def _trail_cursor(request: Request) -> str | None:
    cursor = cursor_from(request)
    if cursor is not None:
        try:
            at, item_id = decode_cursor(cursor)
        except InvalidCursor:
            at, item_id = None, 0
        if at is None or at.tzinfo is None or not 0 <= item_id <= MAX_ID:
            raise ParameterError({"cursor": [_("This page link is damaged; start again from the first page.")]})
    return cursor


class TrailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_trail_list",
        summary="Your trail",
        description="The cards of your trail, newest event first: each paper as /api/v1/papers/ lists it, its "
        "latest matched version, the follows that matched with their reasons, and its read mark. Dismissed cards "
        "are left out. Cursor-paginated: follow `next`.",
        parameters=TRAIL_PARAMETERS,
        responses={200: OpenApiResponse(TrailPageSerializer, description="A page of the trail."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        follow_id = None
        if params.get("follow", "") != "":
            raw = params["follow"]
            own = raw.isascii() and raw.isdigit() and int(raw) <= MAX_ID
            if not own or not Follow.objects.filter(user=request.user, pk=int(raw)).exists():
                raise ParameterError({"follow": [_("You have no follow with this id.")]})
            follow_id = int(raw)
        kind = params.get("kind", "") or None
        if kind is not None and kind not in TrailItem.Kind.values:
            raise ParameterError({"kind": [_("Use new or revision.")]})
        page = trail_page(
            user=request.user,
            follow_id=follow_id,
            kind=kind,
            unread_only=_bool_param(request, "unread", False),
            cursor=_trail_cursor(request),
            size=page_size_from(request),
        )
        cards = {card.paper.pk: card for card in paper_cards([entry.paper for entry in page.entries])}
        next_link = (
            replace_query_param(request.build_absolute_uri(), "cursor", page.next_cursor) if page.next_cursor else None
        )
        return Response(
            TrailPageSerializer({"next": next_link, "results": page.entries}, context={"cards": cards}).data
        )


def _up_to(text: str) -> datetime:
    try:
        at, _item_id = decode_cursor(text)
    except InvalidCursor:
        try:
            at = parse_datetime(text)
        except ValueError:
            at = None
    if at is None or at.tzinfo is None:
        raise ParameterError({"up_to": [_("Give a trail cursor or an ISO 8601 time with its offset.")]})
    return at


class TrailReadView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_trail_read",
        summary="Mark trail cards read",
        description="Mark read the cards listed in `items`, or every card whose event is at or before `up_to` "
        "(a cursor from a `next` link, or a time). Ids that are not yours are ignored.",
        request=TrailReadSerializer,
        responses={200: OpenApiResponse(TrailReadResultSerializer, description="What was marked."), **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        body = TrailReadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if ("items" in data) == ("up_to" in data):
            raise ParameterError({"non_field_errors": [_("Give either items or up_to.")]})
        if "items" in data:
            marked = trail_mark_read(user=request.user, item_ids=data["items"])
        else:
            marked = trail_mark_read(user=request.user, up_to=_up_to(data["up_to"]))
        return Response({"marked": marked, "unread": trail_unread_counts(user=request.user).total})


class _DismissView(APIView):
    permission_classes = [IsAuthenticated]
    dismiss = True

    def post(self, request: Request, item_id: int) -> Response:
        if item_id > MAX_ID or not TrailItem.objects.filter(user=request.user, pk=item_id).exists():
            raise NotFoundParameter({"item_id": [_("You have no trail card with this id.")]})
        (trail_dismiss if self.dismiss else trail_undismiss)(user=request.user, item_id=item_id)
        data = {"id": item_id, "dismissed": self.dismiss, "unread": trail_unread_counts(user=request.user).total}
        return Response(DismissResultSerializer(data).data)


_DISMISS_RESPONSES = {
    200: OpenApiResponse(DismissResultSerializer, description="The card's state."),
    **ERROR_RESPONSES,
    404: OWN_NOT_FOUND,
}


class TrailDismissView(_DismissView):
    @extend_schema(
        operation_id="me_trail_dismiss",
        summary="Dismiss a trail card",
        description='"Not interested": the card leaves the trail and takes no new version until undismissed.',
        parameters=[ITEM_ID_PARAMETER],
        request=None,
        responses=_DISMISS_RESPONSES,
    )
    def post(self, request: Request, item_id: int) -> Response:
        return super().post(request, item_id)


class TrailUndismissView(_DismissView):
    dismiss = False

    @extend_schema(
        operation_id="me_trail_undismiss",
        summary="Undo a dismissal",
        description="The card comes back to the trail, with its read mark as it was.",
        parameters=[ITEM_ID_PARAMETER],
        request=None,
        responses=_DISMISS_RESPONSES,
    )
    def post(self, request: Request, item_id: int) -> Response:
        return super().post(request, item_id)
