"""A lab group's chat channels on its page (/groups/<id>/#channels): members
see them listed (never their webhook or token); only the group's owner adds,
tests, pauses, resumes and deletes them (403 for a member, 404 for anyone
else, as every group page: portal/views/groups.py)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.channels.models import Channel
from accounts.channels.selectors import group_channel_get
from accounts.channels.services import channel_delete, channel_pause, channel_resume, channel_test_request
from portal.views.channels import add_from_form
from portal.views.groups import owner_or_403


def _back(group_id: int) -> HttpResponse:
    return redirect(reverse("portal:group_detail", args=[group_id]) + "#channels")


def _owned(request: HttpRequest, group_id: int, channel_id: int) -> Channel:
    group = owner_or_403(request, group_id).group
    channel = group_channel_get(group_id=group.pk, channel_id=channel_id)
    if channel is None:
        raise Http404
    return channel


@login_required
@require_POST
def group_channel_add(request: HttpRequest, group_id: int) -> HttpResponse:
    add_from_form(request, group=owner_or_403(request, group_id).group)
    return _back(group_id)


@login_required
@require_POST
def group_channel_test(request: HttpRequest, group_id: int, group_channel_id: int) -> HttpResponse:
    channel_test_request(channel=_owned(request, group_id, group_channel_id))
    messages.success(request, _("A test message is on its way; its outcome shows here in a moment."))
    return _back(group_id)


@login_required
@require_POST
def group_channel_pause(request: HttpRequest, group_id: int, group_channel_id: int) -> HttpResponse:
    channel_pause(channel=_owned(request, group_id, group_channel_id))
    return _back(group_id)


@login_required
@require_POST
def group_channel_resume(request: HttpRequest, group_id: int, group_channel_id: int) -> HttpResponse:
    channel_resume(channel=_owned(request, group_id, group_channel_id))
    messages.success(request, _("Channel resumed."))
    return _back(group_id)


@login_required
@require_POST
def group_channel_delete(request: HttpRequest, group_id: int, group_channel_id: int) -> HttpResponse:
    channel_delete(channel=_owned(request, group_id, group_channel_id))
    messages.success(request, _("Channel deleted."))
    return _back(group_id)
