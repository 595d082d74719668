"""Celery tasks of chat channels, on their own queue ("channels"), so a slow
or rate-limited provider never holds up harvests, readings or pages."""

from __future__ import annotations

from datetime import datetime, timedelta

from celery import shared_task

from accounts.channels.sending import next_retry_at, retry_due_sends, send_channels, send_test


@shared_task(name="accounts.send_channels")
def send_channels_task() -> str:
    """The beat's run: every channel's due message, then a later run for what waits."""
    summary = send_channels().summary()
    _queue_retry(next_retry_at())
    return summary


@shared_task(name="accounts.retry_channels")
def retry_channels_task() -> str:
    summary = retry_due_sends().summary()
    _queue_retry(next_retry_at())
    return summary


@shared_task(name="accounts.channel_test")
def channel_test_task(channel_id: int) -> str:
    outcome = send_test(channel_id)
    if isinstance(outcome, timedelta):
        channel_test_task.apply_async((channel_id,), countdown=outcome.total_seconds() + 1)
        return f"rate limited: again in {outcome.total_seconds():.0f}s"
    return outcome


def _queue_retry(at: datetime | None) -> None:
    if at is not None:
        retry_channels_task.apply_async(eta=at, expires=at + timedelta(hours=6))
