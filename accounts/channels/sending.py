"""Channels' messages, each (channel, period) once, as the email alerts are
sent (accounts/alerts/sending.py): a run claims the due periods by inserting
ChannelSend rows (the unique (channel, period) lets one run win), records the
papers a message holds, marks it `sending`, posts it and marks it `sent`. A
transient failure waits (CHANNEL_RETRY_SECONDS, doubling) and is retried by a
later run; a permanent one, or the last attempt, fails the message. After
CHANNEL_PAUSE_AFTER failed attempts in a row the channel is paused and its
owner told by email and on /me/. A claim whose worker died before its
request is taken over after the lease, from its recorded papers; one whose
worker died during its request (`sending`) may have arrived, and no webhook
takes an idempotency key, so it is never sent again: it is closed as failed
(INTERRUPTED), and its papers may come in the channel's next message.

Periods: a channel "after each announcement" has the announcement's listing
day; a daily one the owner's day from CHANNEL_SEND_HOUR; a weekly one the
Monday of the owner's week from that hour on Monday."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from accounts.alerts.selectors import due_day
from accounts.channels.content import Pick, Shelf, build_message, pick_many, pick_papers, shelf_of
from accounts.channels.formats import build_request
from accounts.channels.models import Channel, ChannelSend
from accounts.channels.notify import pause_channel
from accounts.channels.owners import read_owners, reader_of
from accounts.channels.ratelimit import take_token, take_tokens
from accounts.channels.secrets import ChannelsUnavailable, unseal
from accounts.channels.transport import Outcome, post
from accounts.shared.commits import relaxed_commits

logger = logging.getLogger(__name__)

FIRST_WINDOW = {
    Channel.Rhythm.ANNOUNCEMENT: timedelta(days=1),
    Channel.Rhythm.DAILY: timedelta(days=1),
    Channel.Rhythm.WEEKLY: timedelta(days=7),
}
LONGEST_WINDOW = timedelta(days=14)
GRACE = timedelta(hours=6)
BATCH = 200
INTERRUPTED = "interrupted during its request: not sent again, since it may have arrived"


@dataclass
class ChannelRun:
    channels: int = 0
    sent: int = 0
    empty: int = 0
    retry: int = 0
    failed: int = 0
    deferred: int = 0
    skipped: int = 0
    interrupted: int = 0

    def summary(self) -> str:
        return (
            f"channels: {self.sent} sent, {self.empty} with nothing new, {self.retry} to retry, "
            f"{self.deferred} put off by their rate limit, {self.failed} failed, {self.skipped} already claimed, "
            f"{self.interrupted} interrupted earlier and not sent again"
        )


def due_period(channel: Channel, *, now: datetime, listing: date | None) -> date | None:
    if channel.rhythm == Channel.Rhythm.ANNOUNCEMENT:
        return listing
    local = now.astimezone(ZoneInfo(reader_of(channel).time_zone))
    today = local.date() if local.hour >= settings.CHANNEL_SEND_HOUR else local.date() - timedelta(days=1)
    if channel.rhythm == Channel.Rhythm.DAILY:
        return today
    return today - timedelta(days=today.weekday())


def _set(send: ChannelSend, token: str, **fields) -> bool:
    """A conditional update: only the run holding the claim writes."""
    return ChannelSend.objects.filter(pk=send.pk, token=token).update(**fields) == 1


def _windows(channels: list[Channel], now: datetime) -> dict[int, tuple[datetime, set[int]]]:
    """Per channel: where its message's cards begin, and the papers it sent lately (one query)."""
    earlier = ChannelSend.objects.filter(
        channel_id__in=[channel.pk for channel in channels], claimed_at__gte=now - LONGEST_WINDOW, claimed_at__lt=now
    ).values_list("channel_id", "claimed_at", "status", "paper_ids")
    last: dict[int, datetime] = {}
    sent: dict[int, set[int]] = {channel.pk: set() for channel in channels}
    for channel_id, claimed_at, status, papers in earlier:
        if status in (ChannelSend.Status.SENT, ChannelSend.Status.EMPTY):
            last[channel_id] = max(claimed_at, last.get(channel_id, claimed_at))
        if status != ChannelSend.Status.FAILED:
            sent[channel_id].update(item["paper"] for item in papers)
    return {
        channel.pk: (
            max(now - LONGEST_WINDOW, last[channel.pk] - GRACE)
            if channel.pk in last
            else now - FIRST_WINDOW[channel.rhythm],
            sent[channel.pk],
        )
        for channel in channels
    }


def _deliver(sends: list[ChannelSend], *, token: str, now: datetime, run: ChannelRun) -> None:
    """Send these messages (each send's `channel` set): what the fresh claims
    hold is picked and recorded for the lot, the rate limit's tokens taken for
    the lot, then each is marked `sending`, posted and marked (a claim lost to
    another run meanwhile is skipped at its mark)."""
    read_owners([send.channel for send in sends])
    fresh = [send for send in sends if send.status == ChannelSend.Status.CLAIMED and not send.paper_ids]
    if fresh:
        windows = _windows([send.channel for send in fresh], now)
        picks = [Pick(send.channel, windows[send.channel_id][0], now, windows[send.channel_id][1]) for send in fresh]
        for send, picked in zip(fresh, pick_many(picks), strict=True):
            send.paper_ids = picked
        empty = [send.pk for send in fresh if not send.paper_ids]
        run.empty += ChannelSend.objects.filter(pk__in=empty, token=token).update(status=ChannelSend.Status.EMPTY)
        full = [send for send in fresh if send.paper_ids]
        ChannelSend.objects.filter(token=token).bulk_update(full, ["paper_ids"])
        held = set(
            ChannelSend.objects.filter(pk__in=[send.pk for send in full], token=token).values_list("pk", flat=True)
        )
        run.skipped += len(full) - len(held)
        lost = set(empty) | {send.pk for send in full if send.pk not in held}
        sends = [send for send in sends if send.pk not in lost]
    waits = take_tokens([send.channel_id for send in sends], now=now)
    ready = []
    for send, wait in zip(sends, waits, strict=True):
        if wait is None:
            ready.append(send)
            continue
        _set(send, token, status=ChannelSend.Status.RETRY, next_attempt_at=now + wait)
        run.deferred += 1
    shelf = shelf_of([send.paper_ids for send in ready])
    for send in ready:
        _post(send, token=token, now=now, run=run, shelf=shelf)


def _post(send: ChannelSend, *, token: str, now: datetime, run: ChannelRun, shelf: Shelf) -> None:
    channel = send.channel
    request = None
    try:
        message = build_message(channel, picked=send.paper_ids, day=send.period, test=False, shelf=shelf)
        request = build_request(channel.kind, unseal(channel.secret_encrypted), message, now=now)
    except ChannelsUnavailable:
        outcome = Outcome(False, permanent=True, error="the channel's secret cannot be read with the configured keys")
    # Built first: a worker that dies while `sending` loses the message, so that moment is kept short.
    attempts = send.attempts + 1
    if not _set(send, token, status=ChannelSend.Status.SENDING, attempts=attempts):
        run.skipped += 1
        return
    if request is not None:
        outcome = post(request)
    if outcome.sent:
        _set(send, token, status=ChannelSend.Status.SENT, sent_at=timezone.now(), error="", next_attempt_at=None)
        if channel.failures:
            Channel.objects.filter(pk=channel.pk).update(failures=0)
        run.sent += 1
        return
    logger.warning("channel %d message for %s not sent: %s", channel.pk, send.period, outcome.error)
    failures = channel_failed(channel, error=outcome.error)
    if outcome.permanent or attempts >= settings.CHANNEL_ATTEMPTS or failures >= settings.CHANNEL_PAUSE_AFTER:
        _set(send, token, status=ChannelSend.Status.FAILED, error=outcome.error, next_attempt_at=None)
        run.failed += 1
        return
    backoff = timedelta(seconds=settings.CHANNEL_RETRY_SECONDS * 2 ** (attempts - 1))
    if outcome.retry_after:
        backoff = max(backoff, timedelta(seconds=outcome.retry_after))
    _set(send, token, status=ChannelSend.Status.RETRY, next_attempt_at=now + backoff, error=outcome.error)
    run.retry += 1


def channel_failed(channel: Channel, *, error: str) -> int:
    """Counts a failed attempt; the channel is paused at CHANNEL_PAUSE_AFTER in a row."""
    Channel.objects.filter(pk=channel.pk).update(failures=F("failures") + 1)
    failures = Channel.objects.filter(pk=channel.pk).values_list("failures", flat=True).first() or 0
    if failures >= settings.CHANNEL_PAUSE_AFTER:
        pause_channel(channel, reason=error)
    return failures


def send_channels(*, now: datetime | None = None) -> ChannelRun:
    """Claim and send every active channel's due message."""
    now = now or timezone.now()
    run = ChannelRun()
    listing = due_day(now=now)
    token = secrets.token_hex(16)
    channels = Channel.objects.filter(paused_at__isnull=True).select_related("user", "follow").order_by("pk")
    last_id = 0
    lease = timedelta(seconds=settings.CHANNEL_CLAIM_LEASE_SECONDS)
    with relaxed_commits():
        while batch := list(channels.filter(pk__gt=last_id)[:BATCH]):
            last_id = batch[-1].pk
            run.channels += len(batch)
            read_owners(batch)
            due = {channel.pk: due_period(channel, now=now, listing=listing) for channel in batch}
            claims = [
                ChannelSend(channel=channel, period=due[channel.pk], token=token, claimed_at=now)
                for channel in batch
                if due[channel.pk] is not None
            ]
            ChannelSend.objects.bulk_create(claims, ignore_conflicts=True)
            ours = ChannelSend.objects.filter(channel_id__in=[claim.channel_id for claim in claims])
            stale = ours.filter(claimed_at__lt=now - lease).exclude(token=token)
            stale.filter(status=ChannelSend.Status.CLAIMED).update(token=token, claimed_at=now)
            run.interrupted += stale.filter(status=ChannelSend.Status.SENDING).update(
                status=ChannelSend.Status.FAILED, error=INTERRUPTED, next_attempt_at=None
            )
            by_id = {channel.pk: channel for channel in batch}
            mine = list(ours.filter(token=token, status=ChannelSend.Status.CLAIMED).order_by("channel_id"))
            run.skipped += len(claims) - len(mine)
            for send in mine:
                send.channel = by_id[send.channel_id]
            _deliver(mine, token=token, now=now, run=run)
    logger.info("%s", run.summary())
    return run


def retry_due_sends(*, now: datetime | None = None) -> ChannelRun:
    """Send again the messages whose wait (a transient failure, the rate limit) is over."""
    now = now or timezone.now()
    run = ChannelRun()
    token = secrets.token_hex(16)
    due = Q(status=ChannelSend.Status.RETRY, next_attempt_at__lte=now, channel__paused_at__isnull=True)
    ids = list(ChannelSend.objects.filter(due).order_by("next_attempt_at").values_list("pk", flat=True)[:1000])
    ChannelSend.objects.filter(due, pk__in=ids).update(token=token, claimed_at=now)
    held = ChannelSend.objects.filter(pk__in=ids, token=token).select_related("channel__user", "channel__follow")
    sends = sorted(held, key=lambda send: ids.index(send.pk))  # the longest waiting first
    with relaxed_commits():
        for start in range(0, len(sends), BATCH):
            _deliver(sends[start : start + BATCH], token=token, now=now, run=run)
    return run


def next_retry_at() -> datetime | None:
    return (
        ChannelSend.objects.filter(status=ChannelSend.Status.RETRY, channel__paused_at__isnull=True)
        .order_by("next_attempt_at")
        .values_list("next_attempt_at", flat=True)
        .first()
    )


def send_test(channel_id: int, *, now: datetime | None = None) -> timedelta | str:
    """The "send a test message" of a channel: its last week's top papers,
    marked as a test, posted now; the outcome is recorded on the channel (a
    wait from the rate limit is returned instead, for the task to come back)."""
    now = now or timezone.now()
    channel = Channel.objects.select_related("user", "follow").filter(pk=channel_id).first()
    if channel is None:
        return "no such channel"
    wait = take_token(channel.pk, now=now)
    if wait is not None:
        return wait
    try:
        secret = unseal(channel.secret_encrypted)
    except ChannelsUnavailable:
        outcome = Outcome(False, permanent=True, error="the channel's secret cannot be read with the configured keys")
    else:
        picked = pick_papers(channel, since=now - timedelta(days=7), until=now, leave_out=set())
        message = build_message(channel, picked=picked, day=None, test=True)
        outcome = post(build_request(channel.kind, secret, message, now=now))
    Channel.objects.filter(pk=channel.pk).update(tested_at=now, test_ok=outcome.sent, test_error=outcome.error)
    return "sent" if outcome.sent else f"not sent: {outcome.error}"
