"""A channel paused after repeated failures: the pause is recorded (shown on
/me/, the group page and in the admin) and its owner (a group's: the group's
owner) told by email, in their language."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import get_template
from django.urls import reverse
from django.utils import timezone, translation

from accounts.alerts.selectors import absolute, mail_configured
from accounts.channels.models import Channel
from accounts.channels.owners import reader_of

logger = logging.getLogger(__name__)

_SUBJECT = get_template("channels/paused_subject.txt")
_BODY = get_template("channels/paused_email.txt")


def pause_channel(channel: Channel, *, reason: str) -> bool:
    """Pause the channel (once) and mail its owner after the commit."""
    paused = bool(
        Channel.objects.filter(pk=channel.pk, paused_at__isnull=True).update(
            paused_at=timezone.now(), paused_reason=reason[:500]
        )
    )
    if paused:
        transaction.on_commit(lambda: _tell_owner(channel.pk))
    return paused


def _tell_owner(channel_id: int) -> None:
    channel = Channel.objects.select_related("user").filter(pk=channel_id).first()
    if channel is None:
        return
    owner = reader_of(channel)
    if not owner.email or not mail_configured():
        return
    page = reverse("portal:group_detail", args=[channel.group_id]) if channel.group_id else "/me/"
    context = {"channel": channel, "me_url": absolute(page + "#channels"), "site_name": settings.SITE_NAME}
    with translation.override(owner.language):
        subject = " ".join(_SUBJECT.render(context).split())
        body = _BODY.render(context)
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [owner.email])
    except OSError as error:  # smtplib's errors are OSErrors
        logger.warning("the pause of channel %d was not mailed: %s", channel_id, type(error).__name__)
