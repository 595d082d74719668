"""The signed-in user's trail under /api/v1/me/trail/: keyset pages of cards,
read marks and dismissals, over accounts' selectors and services. Another
user's card is a 404, the same answer as an id that names nothing."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.follows.models import Follow
from accounts.recommend.selectors import decode_rank_cursor, for_you_page, ranking_seed, ratings_for_papers
from accounts.trail.models import CardKind, TrailProfile
from accounts.trail.selectors import (
    InvalidCursor,
    decode_cursor,
    trail_item_get,
    trail_order_of,
    trail_page,
    trail_unread_counts,
)
from accounts.trail.services import trail_dismiss, trail_mark_read, trail_undismiss
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.me import MAX_ID, OWN_NOT_FOUND, bool_param
from portal.api.pagination import CURSOR_PARAMETER, PAGE_SIZE_PARAMETER, cursor_from, page_size_from
from portal.api.schema import ERROR_RESPONSES
from portal.api.serializers.me import (
    DismissResultSerializer,
    TrailPageSerializer,
    TrailReadResultSerializer,
    TrailReadSerializer,
)
from portal.selectors import paper_cards

ITEM_ID_PARAMETER = OpenApiParameter(
    "item_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of one of your trail cards."
)

TRAIL_PARAMETERS = [
    OpenApiParameter("follow", OpenApiTypes.INT, description="Only the cards one of your follows matched (its id)."),
    OpenApiParameter("kind", OpenApiTypes.STR, enum=CardKind.values, description="Only new papers or only revisions."),
    OpenApiParameter("unread", OpenApiTypes.BOOL, description="1: only unread cards (default: every card)."),
    OpenApiParameter(
        "order",
        OpenApiTypes.STR,
        enum=list(TrailProfile.Order.values),
        description="for_you: within each day (newest first, in your time zone) by your score; newest: newest "
        "event first. Default: the order you chose on the trail page (for_you unless changed); without a "
        "ranking yet, for_you is newest first.",
    ),
    CURSOR_PARAMETER,
    PAGE_SIZE_PARAMETER,
]


def _usable_time(at: datetime | None) -> bool:
    """An aware time the database can take: in UTC, within datetime's years."""
    if at is None or at.tzinfo is None:
        return False
    try:
        at.astimezone(UTC)
    except OverflowError:
        return False
    return True


def trail_cursor(request: Request, *, ranked: bool) -> str | None:
    cursor = cursor_from(request)
    if cursor is not None and ranked:
        try:
            decode_rank_cursor(cursor)
        except InvalidCursor:
            raise ParameterError(
                {"cursor": [_("This page link is damaged; start again from the first page.")]}
            ) from None
        return cursor
    if cursor is not None:
        try:
            at, item_id = decode_cursor(cursor)
        except InvalidCursor:
            at, item_id = None, 0
        if not _usable_time(at) or not 0 <= item_id <= MAX_ID:
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
        if kind is not None and kind not in CardKind.values:
            raise ParameterError({"kind": [_("Use new or revision.")]})
        order = params.get("order", "") or trail_order_of(user=request.user)
        if order not in TrailProfile.Order.values:
            raise ParameterError({"order": [_("Use for_you or newest.")]})
        ranked = order == TrailProfile.Order.FOR_YOU and ranking_seed(request.user).ready
        read_page = for_you_page if ranked else trail_page
        page = read_page(
            user=request.user,
            follow_id=follow_id,
            kind=kind,
            unread_only=bool_param(request, "unread", False),
            cursor=trail_cursor(request, ranked=ranked),
            size=page_size_from(request),
        )
        cards = {card.paper.pk: card for card in paper_cards([entry.paper for entry in page.entries])}
        next_link = (
            replace_query_param(request.build_absolute_uri(), "cursor", page.next_cursor) if page.next_cursor else None
        )
        ratings = ratings_for_papers(user=request.user, paper_ids=list(cards))
        context = {"cards": cards, "ratings": ratings}
        return Response(
            TrailPageSerializer({"next": next_link, "order": order, "results": page.entries}, context=context).data
        )


def read_bound(text: str) -> tuple[datetime, int | None]:
    """A cursor's card (time and id: cards of one harvest share a time) or a time."""
    item_id = None
    try:
        at, item_id = decode_cursor(text)
    except InvalidCursor:
        try:
            at = parse_datetime(text)
        except ValueError:
            at = None
    if not _usable_time(at):
        raise ParameterError({"up_to": [_("Give a trail cursor or an ISO 8601 time with its offset.")]})
    return at, item_id


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
            at, item_id = read_bound(data["up_to"])
            marked = trail_mark_read(user=request.user, up_to=at, up_to_item=item_id)
        return Response({"marked": marked, "unread": trail_unread_counts(user=request.user).total})


class _DismissView(APIView):
    permission_classes = [IsAuthenticated]
    dismiss = True

    def post(self, request: Request, item_id: int) -> Response:
        if item_id > MAX_ID or trail_item_get(user=request.user, item_id=item_id) is None:
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
