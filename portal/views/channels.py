"""The /me/ page's chat channels: add one (the secret is taken once and never
shown again), send a test message, pause, resume, delete. Another user's
channel is a 404. Errors come back on /me/ naming the field."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.channels.models import Channel
from accounts.channels.selectors import channel_get, channel_list, channels_available
from accounts.channels.services import (
    channel_create,
    channel_delete,
    channel_pause,
    channel_resume,
    channel_test_request,
)
from accounts.channels.types import ChannelError, ChannelsUnavailable
from accounts.follows.models import Follow
from accounts.groups.models import LabGroup
from accounts.models import User


def channels_context(user: User) -> dict:
    return {
        "channels": channel_list(user=user),
        "channels_available": channels_available(),
        "channel_kinds": Channel.Kind.choices,
        "channel_rhythms": Channel.Rhythm.choices,
        "channel_follows": Follow.objects.filter(user=user).order_by("id").values_list("id", "name"),
    }


def _back() -> HttpResponse:
    return redirect(reverse("accounts:me") + "#channels")


def _own(request: HttpRequest, channel_id: int) -> Channel:
    channel = channel_get(user=request.user, channel_id=channel_id)
    if channel is None:
        raise Http404
    return channel


def _number(raw: str, name: str, errors: dict[str, list[str]]) -> int | None:
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        errors[name] = [_("Give a whole number.")]
        return None
    return int(raw)


@login_required
@require_POST
def channel_add(request: HttpRequest) -> HttpResponse:
    add_from_form(request, user=request.user)
    return _back()


def add_from_form(request: HttpRequest, *, user: User | None = None, group: LabGroup | None = None) -> None:
    """Add the posted channel (the user's or the group's); errors become messages naming the field."""
    errors: dict[str, list[str]] = {}
    follow_id = _number(request.POST.get("follow", ""), "follow", errors)
    top_n = _number(request.POST.get("top_n", ""), "top_n", errors)
    try:
        if errors:
            raise ChannelError(errors)
        channel = channel_create(
            user=user,
            group=group,
            kind=request.POST.get("kind", ""),
            name=request.POST.get("name", ""),
            url=request.POST.get("url", ""),
            token=request.POST.get("token", ""),
            chat_id=request.POST.get("chat_id", ""),
            signing_secret=request.POST.get("signing_secret", ""),
            follow_id=follow_id,
            rhythm=request.POST.get("rhythm", Channel.Rhythm.ANNOUNCEMENT),
            top_n=5 if top_n is None else top_n,
        )
    except ChannelError as error:
        for name, texts in error.errors.items():
            messages.error(request, f"{name}: {' '.join(texts)}")
        return
    except ChannelsUnavailable as error:
        messages.error(request, str(error))
        return
    messages.success(request, _("Channel “%(name)s” added; a test message is on its way.") % {"name": channel.name})


@login_required
@require_POST
def channel_test(request: HttpRequest, channel_id: int) -> HttpResponse:
    channel_test_request(channel=_own(request, channel_id))
    messages.success(request, _("A test message is on its way; its outcome shows here in a moment."))
    return _back()


@login_required
@require_POST
def channel_pause_view(request: HttpRequest, channel_id: int) -> HttpResponse:
    channel_pause(channel=_own(request, channel_id))
    return _back()


@login_required
@require_POST
def channel_resume_view(request: HttpRequest, channel_id: int) -> HttpResponse:
    channel_resume(channel=_own(request, channel_id))
    messages.success(request, _("Channel resumed."))
    return _back()


@login_required
@require_POST
def channel_delete_view(request: HttpRequest, channel_id: int) -> HttpResponse:
    channel_delete(channel=_own(request, channel_id))
    messages.success(request, _("Channel deleted."))
    return _back()
