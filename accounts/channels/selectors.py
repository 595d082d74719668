"""Reads of chat channels for portal: the owner's channels (another user's
is None, which portal answers with a 404) and whether channels can be added."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.channels.models import Channel
from accounts.channels.secrets import channels_available
from accounts.models import User

__all__ = ["channel_get", "channel_list", "channels_available"]


def channel_list(*, user: User) -> QuerySet[Channel]:
    return Channel.objects.filter(user=user).select_related("follow").order_by("id")


def channel_get(*, user: User, channel_id: int) -> Channel | None:
    return channel_list(user=user).filter(pk=channel_id).first()
