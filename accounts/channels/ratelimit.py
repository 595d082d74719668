"""A token bucket per channel, kept on its row (CHANNEL_RATE_PER_MINUTE
tokens a minute, CHANNEL_BURST at most): a send takes a token or is told how
long to wait, and the caller puts the message off by that much instead of
sleeping, so a worker never waits on one channel's limit."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from accounts.channels.models import Channel


@transaction.atomic
def take_token(channel_id: int, *, now: datetime) -> timedelta | None:
    """None when a token was taken; else how long until one is there."""
    rate = settings.CHANNEL_RATE_PER_MINUTE / 60.0
    burst = float(settings.CHANNEL_BURST)
    row = Channel.objects.select_for_update().only("bucket_tokens", "bucket_at").get(pk=channel_id)
    tokens = burst if row.bucket_tokens is None else row.bucket_tokens
    if row.bucket_at is not None:
        tokens = min(burst, tokens + max(0.0, (now - row.bucket_at).total_seconds()) * rate)
    if tokens < 1.0:
        Channel.objects.filter(pk=channel_id).update(bucket_tokens=tokens, bucket_at=now)
        return timedelta(seconds=(1.0 - tokens) / rate)
    Channel.objects.filter(pk=channel_id).update(bucket_tokens=tokens - 1.0, bucket_at=now)
    return None
