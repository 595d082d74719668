"""Writes of chat channels: add one (its secret sealed at once, a test
message queued), delete, pause, resume, and ask for a test message. A bad
parameter raises ChannelError naming it. A channel is a user's or (`group`)
a lab group's; portal lets only the group's owner call these for its channels."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.channels import tasks
from accounts.channels.models import Channel
from accounts.channels.secrets import channels_available, seal
from accounts.channels.types import ChannelError, ChannelsUnavailable
from accounts.follows.models import Follow
from accounts.groups.models import LabGroup
from accounts.models import User

__all__ = [
    "MAX_CHANNELS",
    "channel_create",
    "channel_delete",
    "channel_pause",
    "channel_resume",
    "channel_test_request",
]

MAX_CHANNELS = 20
# The hosts each kind's webhooks live on (ntfy and plain webhooks: any public host).
HOSTS = {
    Channel.Kind.FEISHU: {"open.feishu.cn"},
    Channel.Kind.LARK: {"open.larksuite.com"},
    Channel.Kind.WECOM: {"qyapi.weixin.qq.com"},
    Channel.Kind.DINGTALK: {"oapi.dingtalk.com"},
    Channel.Kind.SLACK: {"hooks.slack.com"},
    Channel.Kind.DISCORD: {"discord.com", "discordapp.com"},
}
_TELEGRAM_TOKEN = re.compile(r"^\d{3,15}:[A-Za-z0-9_-]{30,64}$")
_TELEGRAM_CHAT = re.compile(r"^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$")


def _url_error(kind: str, url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname or len(url) > 1000:
        return _("Give the full webhook address (https://…).")
    if settings.CHANNEL_ANY_HOST:
        return None
    if parts.scheme != "https":
        return _("The webhook address must start with https://.")
    host = parts.hostname.lower()
    allowed = HOSTS.get(kind)
    if allowed is not None:
        return (
            None
            if host in allowed
            else _("A %(kind)s webhook is on %(hosts)s.")
            % {
                "kind": Channel.Kind(kind).label,
                "hosts": ", ".join(sorted(allowed)),
            }
        )
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return None if "." in host and host != "localhost" else _("Give a public host name.")
    return _("Give a public host name.")


def _secret(kind: str, *, url: str, token: str, chat_id: str, errors: dict[str, list[str]]) -> dict[str, str]:
    if kind == Channel.Kind.TELEGRAM:
        if not _TELEGRAM_TOKEN.match(token):
            errors["token"] = [_("Give the bot token BotFather gave you (digits, a colon, then letters).")]
        if not _TELEGRAM_CHAT.match(chat_id):
            errors["chat_id"] = [_("Give the chat's numeric id or its @username.")]
        return {"token": token, "chat_id": chat_id}
    problem = _url_error(kind, url)
    if problem:
        errors["url"] = [problem]
    return {"url": url}


@transaction.atomic
def channel_create(
    *,
    user: User | None = None,
    group: LabGroup | None = None,
    kind: str,
    name: str = "",
    url: str = "",
    token: str = "",
    chat_id: str = "",
    follow_id: int | None = None,
    rhythm: str = Channel.Rhythm.ANNOUNCEMENT,
    top_n: int = 5,
) -> Channel:
    if (user is None) == (group is None):
        raise ValueError("a channel is a user's or a group's")
    owned = {"group": group} if group is not None else {"user": user}
    if not channels_available():
        raise ChannelsUnavailable(_("Chat channels are not set up on this site (PAPERTRAIL_SECRET_KEYS)."))
    errors: dict[str, list[str]] = {}
    if kind not in Channel.Kind.values:
        errors["kind"] = [_("Choose one of: %(kinds)s.") % {"kinds": ", ".join(Channel.Kind.values)}]
    if rhythm not in Channel.Rhythm.values:
        errors["rhythm"] = [_("Choose one of: %(rhythms)s.") % {"rhythms": ", ".join(Channel.Rhythm.values)}]
    if not 1 <= top_n <= settings.CHANNEL_MAX_TOP:
        errors["top_n"] = [_("Choose from 1 to %(max)d papers.") % {"max": settings.CHANNEL_MAX_TOP}]
    name = " ".join(name.split())
    if len(name) > 100:
        errors["name"] = [_("Use at most 100 characters.")]
    follow = None
    if follow_id is not None:
        follow = Follow.objects.filter(pk=follow_id, **owned).first()
        if follow is None:
            errors["follow"] = [
                _("The group has no follow with this id.") if group else _("You have no follow with this id.")
            ]
    secret = (
        _secret(kind, url=url.strip(), token=token.strip(), chat_id=chat_id.strip(), errors=errors)
        if (kind in Channel.Kind.values)
        else {}
    )
    if Channel.objects.select_for_update().filter(**owned).count() >= MAX_CHANNELS:
        errors["kind"] = [_("You have %(max)d channels, the most there can be.") % {"max": MAX_CHANNELS}]
    if errors:
        raise ChannelError(errors)
    host = "api.telegram.org" if kind == Channel.Kind.TELEGRAM else (urlsplit(secret["url"]).hostname or "")
    channel = Channel.objects.create(
        **owned,
        kind=kind,
        name=name or Channel.Kind(kind).label,
        secret_encrypted=seal(secret),
        target_host=host,
        follow=follow,
        rhythm=rhythm,
        top_n=top_n,
    )
    channel_test_request(channel=channel)
    return channel


def channel_test_request(*, channel: Channel) -> None:
    """Queue "send a test message" (on the channels queue, after the commit)."""
    channel_id = channel.pk
    transaction.on_commit(lambda: tasks.channel_test_task.delay(channel_id))


def channel_delete(*, channel: Channel) -> None:
    channel.delete()


def channel_pause(*, channel: Channel) -> bool:
    return bool(
        Channel.objects.filter(pk=channel.pk, paused_at__isnull=True).update(
            paused_at=timezone.now(), paused_reason=_("Paused by you.")
        )
    )


def channel_resume(*, channel: Channel) -> bool:
    """Resume: failures forgotten, messages from the next period on."""
    return bool(
        Channel.objects.filter(pk=channel.pk, paused_at__isnull=False).update(
            paused_at=None, paused_reason="", failures=0
        )
    )
