"""Reads of chat channels for portal: the owner's (or a group's) channels (another user's
is None, which portal answers with a 404) and whether channels can be added."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.channels.models import Channel
from accounts.channels.secrets import channels_available
from accounts.models import User

__all__ = ["channel_get", "channel_list", "channels_available", "group_channel_get", "group_channel_list"]


def channel_list(*, user: User) -> QuerySet[Channel]:
    return Channel.objects.filter(user=user).select_related("follow").order_by("id")


def channel_get(*, user: User, channel_id: int) -> Channel | None:
    return channel_list(user=user).filter(pk=channel_id).first()


def group_channel_list(*, group_id: int) -> QuerySet[Channel]:
    """A lab group's channels (portal shows them to its members, manages them for its owner)."""
    return Channel.objects.filter(group_id=group_id).select_related("follow").order_by("id")


def group_channel_get(*, group_id: int, channel_id: int) -> Channel | None:
    return group_channel_list(group_id=group_id).filter(pk=channel_id).first()
