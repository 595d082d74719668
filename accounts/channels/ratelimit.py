"""A token bucket per channel, kept on its row (CHANNEL_RATE_PER_MINUTE
tokens a minute, CHANNEL_BURST at most): a send takes a token or is told how
long to wait, and the caller puts the message off by that much instead of
sleeping, so a worker never waits on one channel's limit."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from accounts.channels.models import Channel


def take_token(channel_id: int, *, now: datetime) -> timedelta | None:
    """None when a token was taken; else how long until one is there."""
    return take_tokens([channel_id], now=now)[0]


@transaction.atomic
def take_tokens(channel_ids: list[int], *, now: datetime) -> list[timedelta | None]:
    """take_token for each of these channels in turn (a batch's: a few
    statements for the lot; a channel named twice takes two tokens). A
    channel gone meanwhile takes nothing (its messages went with it)."""
    rate = settings.CHANNEL_RATE_PER_MINUTE / 60.0
    burst = float(settings.CHANNEL_BURST)
    rows = {
        row.pk: row
        for row in Channel.objects.select_for_update()
        .filter(pk__in=sorted(set(channel_ids)))
        .order_by("pk")  # rows locked in one order: runs side by side do not deadlock
        .only("bucket_tokens", "bucket_at")
    }
    waits: list[timedelta | None] = []
    for channel_id in channel_ids:
        row = rows.get(channel_id)
        if row is None:
            waits.append(None)
            continue
        tokens = burst if row.bucket_tokens is None else row.bucket_tokens
        if row.bucket_at is not None:
            tokens = min(burst, tokens + max(0.0, (now - row.bucket_at).total_seconds()) * rate)
        row.bucket_at = now
        if tokens < 1.0:
            row.bucket_tokens = tokens
            waits.append(timedelta(seconds=(1.0 - tokens) / rate))
        else:
            row.bucket_tokens = tokens - 1.0
            waits.append(None)
    # Buckets mostly refill between periods, so most rows end at the same value: an update per value.
    by_value: dict[float, list[int]] = defaultdict(list)
    for row in rows.values():
        by_value[row.bucket_tokens].append(row.pk)
    for tokens, ids in by_value.items():
        Channel.objects.filter(pk__in=ids).update(bucket_tokens=tokens, bucket_at=now)
    return waits
