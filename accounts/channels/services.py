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
from accounts.channels.signing import SIGNED_KINDS
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
_NTFY_TOKEN = re.compile(r"^tk_[A-Za-z0-9]{20,60}$")
_SIGNING_SECRET = re.compile(r"^[\x21-\x7e]{8,200}$")
# The secrets each kind takes; any other given is a bad parameter, not silently dropped.
_TAKES = {
    Channel.Kind.TELEGRAM: {"token", "chat_id"},
    Channel.Kind.NTFY: {"url", "token"},
    **{kind: {"url", "signing_secret"} for kind in SIGNED_KINDS},
}


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


def _secret(kind: str, given: dict[str, str], errors: dict[str, list[str]]) -> dict[str, str]:
    """The sealed part of a channel: its address or bot, and an optional signing secret or access token."""
    takes = _TAKES.get(kind, {"url"})
    for name in sorted(name for name, value in given.items() if value and name not in takes):
        errors[name] = [_("A %(kind)s channel does not take this.") % {"kind": Channel.Kind(kind).label}]
    token, chat_id = given["token"], given["chat_id"]
    if kind == Channel.Kind.TELEGRAM:
        if not _TELEGRAM_TOKEN.match(token):
            errors["token"] = [_("Give the bot token BotFather gave you (digits, a colon, then letters).")]
        if not _TELEGRAM_CHAT.match(chat_id):
            errors["chat_id"] = [_("Give the chat's numeric id or its @username.")]
        return {"token": token, "chat_id": chat_id}
    url = given["url"]
    problem = _url_error(kind, url)
    if problem:
        errors["url"] = [problem]
    secret = {"url": url}
    signing_secret = given["signing_secret"]
    if kind in SIGNED_KINDS and signing_secret:
        if not _SIGNING_SECRET.match(signing_secret):
            errors["signing_secret"] = [_("Give the bot's signing secret as shown in its security settings.")]
        elif kind == Channel.Kind.DINGTALK and not signing_secret.startswith("SEC"):
            errors["signing_secret"] = [_("A DingTalk signing secret starts with SEC.")]
        secret["signing_secret"] = signing_secret
    if kind == Channel.Kind.NTFY and token:
        if not _NTFY_TOKEN.match(token):
            errors["token"] = [_("Give the ntfy access token (tk_ and letters and digits).")]
        elif urlsplit(url).username is not None:
            errors["token"] = [_("Give either an access token or a user and password in the address, not both.")]
        secret["token"] = token
    return secret


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
    signing_secret: str = "",
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
    given = {"url": url, "token": token, "chat_id": chat_id, "signing_secret": signing_secret}
    secret = (
        _secret(kind, {name: value.strip() for name, value in given.items()}, errors)
        if kind in Channel.Kind.values
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
