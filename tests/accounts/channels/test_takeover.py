"""A worker that died holding claims: a message it had not begun to send is
taken over after the lease and sent once; one it was sending may have
arrived (no webhook takes an idempotency key), so it is never sent again."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.channels.models import Channel, ChannelSend
from accounts.channels.sending import INTERRUPTED, due_period, send_channels
from tests.accounts.channels.world import add_channel, received

pytestmark = pytest.mark.django_db


def _dead_claim(channel: Channel, *, status: str, now: datetime) -> ChannelSend:
    claimed_at = now - timedelta(seconds=settings.CHANNEL_CLAIM_LEASE_SECONDS + 1)
    period = due_period(channel, now=now, listing=None)
    send = ChannelSend(channel=channel, period=period, token="dead", claimed_at=claimed_at, status=status)
    send.save()
    return send


def test_a_dead_workers_claim_is_sent_once_unless_it_was_being_sent(server, on_a_listing_day, alice):
    """At noon in Beijing, so that the lease and the half hour after it are one daily period."""
    waiting = add_channel(alice, server, "webhook", rhythm="daily")
    in_flight = add_channel(alice, server, "slack", rhythm="daily")
    now = timezone.now()
    claimed_at = _dead_claim(waiting, status="claimed", now=now).claimed_at
    _dead_claim(in_flight, status="sending", now=now)
    # Within the lease both are still the dead worker's.
    early = send_channels(now=claimed_at + timedelta(seconds=60))
    assert (early.sent, early.skipped, early.interrupted) == (0, 2, 0)
    run = send_channels(now=now)
    assert (run.sent, run.interrupted) == (1, 1)
    assert len(received(server, "webhook")) == 1 and received(server, "slack") == []
    assert ChannelSend.objects.get(channel=waiting).status == "sent"
    interrupted = ChannelSend.objects.get(channel=in_flight)
    assert (interrupted.status, interrupted.error) == ("failed", INTERRUPTED)
    assert Channel.objects.get(pk=in_flight.pk).failures == 0  # not the webhook's fault
    assert send_channels(now=now + timedelta(minutes=30)).sent == 0
    assert len(received(server, "webhook")) == 1 and received(server, "slack") == []
