"""Whose channel it is: a researcher's own, or a lab group's, whose owner's
language, time zone and email apply (read once per channel object)."""

from __future__ import annotations

from accounts.channels.models import Channel
from accounts.groups.models import Membership
from accounts.models import User


def reader_of(channel: Channel) -> User:
    """The channel's user, or its group's owner (ownership can move: read at send time)."""
    reader = getattr(channel, "_reader", None)
    if reader is None:
        if channel.group_id is None:
            reader = channel.user
        else:
            reader = (
                Membership.objects.select_related("user")
                .get(group_id=channel.group_id, role=Membership.Role.OWNER)
                .user
            )
        channel._reader = reader
    return reader
