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


def read_owners(channels: list[Channel]) -> None:
    """reader_of for these channels ahead, the groups' owners in one query."""
    channels = [channel for channel in channels if channel.group_id is not None and not hasattr(channel, "_reader")]
    groups = {channel.group_id for channel in channels}
    if not groups:
        return
    owners = {
        membership.group_id: membership.user
        for membership in Membership.objects.select_related("user").filter(
            group_id__in=groups, role=Membership.Role.OWNER
        )
    }
    for channel in channels:
        if channel.group_id in owners:
            channel._reader = owners[channel.group_id]
