"""A lab group's follows and trail under /api/v1/groups/<id>/: every member
reads them, each with their own read marks; the owner adds and removes the
follows. A group the caller is not in is a 404 (portal/api/groups.py)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.follows.selectors import group_follow_get, group_follow_list
from accounts.follows.services import follow_create, follow_delete, max_follows
from accounts.follows.types import FollowDefinition
from accounts.recommend.selectors import ratings_for_papers
from accounts.trail.models import CardKind
from accounts.trail.selectors import group_trail_unread_total, trail_page
from accounts.trail.services import trail_mark_read
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.groups import GROUP_ID_PARAMETER, GROUP_RESPONSES, member_of, owner_of
from portal.api.me import MAX_ID, bool_param
from portal.api.pagination import CURSOR_PARAMETER, PAGE_SIZE_PARAMETER, page_size_from
from portal.api.serializers.me import (
    FollowListSerializer,
    FollowSerializer,
    FollowWriteSerializer,
    TrailPageSerializer,
    TrailReadResultSerializer,
    TrailReadSerializer,
    domain_error_field,
)
from portal.api.trail import read_bound, trail_cursor
from portal.selectors import paper_cards


def _errors(kind: str, error: ValidationError) -> ParameterError:
    errors: dict[str, list[str]] = {}
    for key, messages in error.message_dict.items():
        errors.setdefault(domain_error_field(kind, key), []).extend(messages)
    return ParameterError(errors)


class GroupFollowListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_follows_list",
        summary="A group's follows",
        description="The follows the group owns, oldest first; every member reads them.",
        parameters=[GROUP_ID_PARAMETER],
        responses={200: OpenApiResponse(FollowListSerializer, description="The group's follows."), **GROUP_RESPONSES},
    )
    def get(self, request: Request, group_id: int) -> Response:
        follows = group_follow_list(group_id=member_of(request, group_id).group.pk)
        return Response(FollowListSerializer({"count": len(follows), "limit": max_follows(), "results": follows}).data)

    @extend_schema(
        operation_id="groups_follows_create",
        summary="Follow something as a group (its owner)",
        description="As POST /api/v1/me/follows/, for the group: its matches come to the group's trail, which "
        "every member reads. Delivered in the trail only (`delivery` other than trail is a 400).",
        parameters=[GROUP_ID_PARAMETER],
        request=FollowWriteSerializer,
        responses={201: OpenApiResponse(FollowSerializer, description="The new follow."), **GROUP_RESPONSES},
    )
    def post(self, request: Request, group_id: int) -> Response:
        membership = owner_of(request, group_id)
        body = FollowWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        kind = data["kind"]
        options = {
            key: data[key] for key in ("include_cross_lists", "include_revisions", "muted", "delivery") if key in data
        }
        try:
            definition = FollowDefinition.from_api(kind, data["value"])
            follow = follow_create(
                group_id=membership.group.pk, kind=kind, value=definition, name=data.get("name"), **options
            )
        except ValidationError as error:
            raise _errors(kind, error) from None
        return Response(FollowSerializer(follow).data, status=status.HTTP_201_CREATED)


class GroupFollowDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_follows_delete",
        summary="Stop a group's follow (its owner)",
        description="Its owner stops one of the group's follows; its cards leave the group's trail.",
        parameters=[
            GROUP_ID_PARAMETER,
            OpenApiParameter(
                "group_follow_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The group's follow's id."
            ),
        ],
        responses={204: None, **GROUP_RESPONSES},
    )
    def delete(self, request: Request, group_id: int, group_follow_id: int) -> Response:
        membership = owner_of(request, group_id)
        found = group_follow_id <= MAX_ID
        follow = group_follow_get(group_id=membership.group.pk, follow_id=group_follow_id) if found else None
        if follow is None:
            raise NotFoundParameter({"group_follow_id": [_("The group has no follow with this id.")]})
        follow_delete(follow=follow)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GroupTrailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_trail_list",
        summary="A group's trail",
        description="The cards the group's follows brought, newest event first, read or unread by your own marks "
        "(each member has theirs). Cursor-paginated: follow `next`.",
        parameters=[
            GROUP_ID_PARAMETER,
            OpenApiParameter(
                "follow", OpenApiTypes.INT, description="Only the cards one of the group's follows matched."
            ),
            OpenApiParameter(
                "kind", OpenApiTypes.STR, enum=CardKind.values, description="Only new papers or revisions."
            ),
            OpenApiParameter("unread", OpenApiTypes.BOOL, description="1: only the cards unread by you."),
            CURSOR_PARAMETER,
            PAGE_SIZE_PARAMETER,
        ],
        responses={200: OpenApiResponse(TrailPageSerializer, description="A page of the trail."), **GROUP_RESPONSES},
    )
    def get(self, request: Request, group_id: int) -> Response:
        group = member_of(request, group_id).group
        params = request.query_params
        follow_id = None
        if params.get("follow", "") != "":
            raw = params["follow"]
            own = raw.isascii() and raw.isdigit() and int(raw) <= MAX_ID
            if not own or group_follow_get(group_id=group.pk, follow_id=int(raw)) is None:
                raise ParameterError({"follow": [_("The group has no follow with this id.")]})
            follow_id = int(raw)
        kind = params.get("kind", "") or None
        if kind is not None and kind not in CardKind.values:
            raise ParameterError({"kind": [_("Use new or revision.")]})
        page = trail_page(
            user=request.user,
            group_id=group.pk,
            follow_id=follow_id,
            kind=kind,
            unread_only=bool_param(request, "unread", False),
            cursor=trail_cursor(request, ranked=False),
            size=page_size_from(request),
        )
        cards = {card.paper.pk: card for card in paper_cards([entry.paper for entry in page.entries])}
        next_link = (
            replace_query_param(request.build_absolute_uri(), "cursor", page.next_cursor) if page.next_cursor else None
        )
        context = {"cards": cards, "ratings": ratings_for_papers(user=request.user, paper_ids=list(cards))}
        data = {"next": next_link, "order": "newest", "results": page.entries}
        return Response(TrailPageSerializer(data, context=context).data)


class GroupTrailReadView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_trail_read",
        summary="Mark a group's trail cards read (for you)",
        description="As POST /api/v1/me/trail/read/, on the group's trail: your marks only, not the other members'.",
        parameters=[GROUP_ID_PARAMETER],
        request=TrailReadSerializer,
        responses={200: OpenApiResponse(TrailReadResultSerializer, description="What was marked."), **GROUP_RESPONSES},
    )
    def post(self, request: Request, group_id: int) -> Response:
        group = member_of(request, group_id).group
        body = TrailReadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if ("items" in data) == ("up_to" in data):
            raise ParameterError({"non_field_errors": [_("Give either items or up_to.")]})
        if "items" in data:
            marked = trail_mark_read(user=request.user, item_ids=data["items"], group_id=group.pk)
        else:
            at, item_id = read_bound(data["up_to"])
            marked = trail_mark_read(user=request.user, up_to=at, up_to_item=item_id, group_id=group.pk)
        return Response({"marked": marked, "unread": group_trail_unread_total(user=request.user, group_id=group.pk)})
