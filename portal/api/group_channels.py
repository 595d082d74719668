"""A lab group's chat channels under /api/v1/groups/<id>/channels/: every
member lists and reads them (never their webhook or token); only the group's
owner adds, pauses, resumes, deletes and tests them. A group the caller is not
in is a 404 (portal/api/groups.py), as is a channel of another group."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.channels.models import Channel
from accounts.channels.selectors import group_channel_get, group_channel_list
from accounts.channels.services import (
    channel_delete,
    channel_test_request,
)
from portal.api.channels import channel_created, channel_pause_or_resume
from portal.api.errors import NotFoundParameter
from portal.api.groups import GROUP_ID_PARAMETER, GROUP_RESPONSES, member_of, owner_of
from portal.api.me import MAX_ID
from portal.api.serializers.channels import ChannelSerializer, ChannelUpdateSerializer, ChannelWriteSerializer

GROUP_CHANNEL_ID_PARAMETER = OpenApiParameter(
    "group_channel_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of one of the group's channels."
)


def _group_channel(group_id: int, channel_id: int) -> Channel:
    channel = group_channel_get(group_id=group_id, channel_id=channel_id) if channel_id <= MAX_ID else None
    if channel is None:
        raise NotFoundParameter({"group_channel_id": [_("The group has no channel with this id.")]})
    return channel


class GroupChannelListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_channels_list",
        summary="A group's chat channels",
        description="The channels the group owns, oldest first; every member sees them, never their webhook or token.",
        parameters=[GROUP_ID_PARAMETER],
        responses={200: OpenApiResponse(ChannelSerializer(many=True), description="The channels."), **GROUP_RESPONSES},
    )
    def get(self, request: Request, group_id: int) -> Response:
        group = member_of(request, group_id).group
        return Response(ChannelSerializer(group_channel_list(group_id=group.pk), many=True).data)

    @extend_schema(
        operation_id="groups_channels_create",
        summary="Add a chat channel to a group (its owner)",
        description="As POST /api/v1/me/channels/, for the group: one message per period with the group trail's "
        "newest papers (or one group follow's), in the owner's language, without rating links.",
        parameters=[GROUP_ID_PARAMETER],
        request=ChannelWriteSerializer,
        responses={201: OpenApiResponse(ChannelSerializer, description="The new channel."), **GROUP_RESPONSES},
    )
    def post(self, request: Request, group_id: int) -> Response:
        group = owner_of(request, group_id).group  # before the body: a member is refused whatever they send
        return channel_created(request.data, group=group)


class GroupChannelDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_channels_retrieve",
        summary="One of a group's chat channels",
        description="Every member reads it (never its webhook or token); 404 for a channel of another group.",
        parameters=[GROUP_ID_PARAMETER, GROUP_CHANNEL_ID_PARAMETER],
        responses={200: ChannelSerializer, **GROUP_RESPONSES},
    )
    def get(self, request: Request, group_id: int, group_channel_id: int) -> Response:
        group = member_of(request, group_id).group
        return Response(ChannelSerializer(_group_channel(group.pk, group_channel_id)).data)

    @extend_schema(
        operation_id="groups_channels_partial_update",
        summary="Pause or resume a group's chat channel (its owner)",
        description="`paused: true` stops its messages; `false` resumes it (its failures are forgotten).",
        parameters=[GROUP_ID_PARAMETER, GROUP_CHANNEL_ID_PARAMETER],
        request=ChannelUpdateSerializer,
        responses={200: ChannelSerializer, **GROUP_RESPONSES},
    )
    def patch(self, request: Request, group_id: int, group_channel_id: int) -> Response:
        group = owner_of(request, group_id).group
        channel_pause_or_resume(_group_channel(group.pk, group_channel_id), request.data)
        return Response(ChannelSerializer(_group_channel(group.pk, group_channel_id)).data)

    @extend_schema(
        operation_id="groups_channels_destroy",
        summary="Delete a group's chat channel (its owner)",
        description="The channel, its secret and its record of messages are removed.",
        parameters=[GROUP_ID_PARAMETER, GROUP_CHANNEL_ID_PARAMETER],
        responses={204: OpenApiResponse(description="Deleted."), **GROUP_RESPONSES},
    )
    def delete(self, request: Request, group_id: int, group_channel_id: int) -> Response:
        group = owner_of(request, group_id).group
        channel_delete(channel=_group_channel(group.pk, group_channel_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class GroupChannelTestView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="groups_channels_test",
        summary="Send a test message to a group's channel (its owner)",
        description="Queues a test message (the group trail's last week, marked as a test); its outcome shows "
        "in the channel's `tested_at`, `test_ok` and `test_error` once sent.",
        parameters=[GROUP_ID_PARAMETER, GROUP_CHANNEL_ID_PARAMETER],
        request=None,
        responses={
            202: OpenApiResponse(
                inline_serializer(
                    "GroupChannelTestQueued",
                    {"queued": serializers.BooleanField(help_text="The test message is queued.")},
                ),
                description="Queued.",
            ),
            **GROUP_RESPONSES,
        },
    )
    def post(self, request: Request, group_id: int, group_channel_id: int) -> Response:
        group = owner_of(request, group_id).group
        channel_test_request(channel=_group_channel(group.pk, group_channel_id))
        return Response({"queued": True}, status=status.HTTP_202_ACCEPTED)
