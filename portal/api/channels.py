"""The signed-in user's chat channels under /api/v1/me/channels/: list, add
(the secret is taken once and never returned), pause or resume, delete, and
"send a test message"; thin views over accounts.channels. Another user's
channel is a 404, as an id that names nothing."""

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
from accounts.channels.selectors import channel_get, channel_list
from accounts.channels.services import (
    channel_create,
    channel_delete,
    channel_pause,
    channel_resume,
    channel_test_request,
)
from accounts.channels.types import ChannelError, ChannelsUnavailable
from portal.api.errors import NotFoundParameter, ParameterError
from portal.api.me import MAX_ID, OWN_NOT_FOUND
from portal.api.schema import ERROR_RESPONSES
from portal.api.serializers.channels import ChannelSerializer, ChannelUpdateSerializer, ChannelWriteSerializer

CHANNEL_ID_PARAMETER = OpenApiParameter(
    "channel_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The id of one of your channels."
)


def _own_channel(request: Request, channel_id: int) -> Channel:
    channel = channel_get(user=request.user, channel_id=channel_id) if channel_id <= MAX_ID else None
    if channel is None:
        raise NotFoundParameter({"channel_id": [_("You have no channel with this id.")]})
    return channel


class ChannelListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_channels_list",
        summary="Your chat channels",
        description="Every chat channel of the signed-in user, oldest first; never its webhook or token.",
        responses={200: OpenApiResponse(ChannelSerializer(many=True), description="Your channels."), **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return Response(ChannelSerializer(channel_list(user=request.user), many=True).data)

    @extend_schema(
        operation_id="me_channels_create",
        summary="Add a chat channel",
        description="Feishu, Lark, WeCom, DingTalk, Slack, Discord, ntfy or a JSON webhook take `url` (the "
        "webhook address); Telegram takes `token` and `chat_id`. A Feishu, Lark or DingTalk bot with signature "
        "verification also takes `signing_secret`; an ntfy protected topic, `token` (an access token). Secrets are "
        "stored encrypted and never shown again; a test message is sent at once. Errors name the field, as does "
        "a field the kind does not take.",
        request=ChannelWriteSerializer,
        responses={201: OpenApiResponse(ChannelSerializer, description="The new channel."), **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        return channel_created(request.data, user=request.user)


def channel_created(data: dict, **owner) -> Response:
    """Adds a channel for its owner (`user=` or `group=`) from a request's body:
    201 with the channel, or a 400 naming the field."""
    body = ChannelWriteSerializer(data=data)
    body.is_valid(raise_exception=True)
    args = dict(body.validated_data)
    args["follow_id"] = args.pop("follow")
    try:
        channel = channel_create(**owner, **args)
    except ChannelError as error:
        raise ParameterError(error.errors) from None
    except ChannelsUnavailable as error:
        raise ParameterError({"kind": [str(error)]}) from None
    return Response(ChannelSerializer(channel).data, status=status.HTTP_201_CREATED)


def channel_pause_or_resume(channel: Channel, data: dict) -> None:
    """`paused: true` pauses the channel, `false` resumes it; a bad body is a 400."""
    body = ChannelUpdateSerializer(data=data)
    body.is_valid(raise_exception=True)
    if body.validated_data["paused"]:
        channel_pause(channel=channel)
    else:
        channel_resume(channel=channel)


class ChannelDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_channels_retrieve",
        summary="One of your chat channels",
        description="A channel of the signed-in user, with its last test and whether it is paused; "
        "404 for any other id.",
        parameters=[CHANNEL_ID_PARAMETER],
        responses={200: ChannelSerializer, **ERROR_RESPONSES, 404: OWN_NOT_FOUND},
    )
    def get(self, request: Request, channel_id: int) -> Response:
        return Response(ChannelSerializer(_own_channel(request, channel_id)).data)

    @extend_schema(
        operation_id="me_channels_partial_update",
        summary="Pause or resume a chat channel",
        description="`paused: true` stops its messages; `false` resumes it (its failures are forgotten).",
        parameters=[CHANNEL_ID_PARAMETER],
        request=ChannelUpdateSerializer,
        responses={200: ChannelSerializer, **ERROR_RESPONSES, 404: OWN_NOT_FOUND},
    )
    def patch(self, request: Request, channel_id: int) -> Response:
        channel_pause_or_resume(_own_channel(request, channel_id), request.data)
        return Response(ChannelSerializer(_own_channel(request, channel_id)).data)

    @extend_schema(
        operation_id="me_channels_destroy",
        summary="Delete a chat channel",
        description="The channel, its secret and its record of messages are removed.",
        parameters=[CHANNEL_ID_PARAMETER],
        responses={204: OpenApiResponse(description="Deleted."), **ERROR_RESPONSES, 404: OWN_NOT_FOUND},
    )
    def delete(self, request: Request, channel_id: int) -> Response:
        channel_delete(channel=_own_channel(request, channel_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChannelTestView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me_channels_test",
        summary="Send a test message",
        description="Queues a test message (your last week's top papers, marked as a test); its outcome shows "
        "in the channel's `tested_at`, `test_ok` and `test_error` once sent.",
        parameters=[CHANNEL_ID_PARAMETER],
        request=None,
        responses={
            202: OpenApiResponse(
                inline_serializer(
                    "ChannelTestQueued", {"queued": serializers.BooleanField(help_text="The test message is queued.")}
                ),
                description="Queued.",
            ),
            **ERROR_RESPONSES,
            404: OWN_NOT_FOUND,
        },
    )
    def post(self, request: Request, channel_id: int) -> Response:
        channel_test_request(channel=_own_channel(request, channel_id))
        return Response({"queued": True}, status=status.HTTP_202_ACCEPTED)
