"""Celery tasks of email alerts: thin wrappers over one service each."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task

from accounts.alerts.sending import FREQUENCIES, next_retry_at, retry_due_alerts, send_alerts


@shared_task(name="accounts.send_alerts")
def send_alerts_task() -> str:
    """The beat's run after an announcement: daily and weekly alerts, then
    a later run for any transient failure (its own retry time)."""
    summaries = [send_alerts(frequency=frequency).summary() for frequency in FREQUENCIES]
    _queue_retry(next_retry_at())
    return "; ".join(summaries)


@shared_task(name="accounts.retry_alerts")
def retry_alerts_task() -> str:
    run = retry_due_alerts()
    _queue_retry(next_retry_at())
    return run.summary()


def _queue_retry(at) -> None:
    if at is not None:
        retry_alerts_task.apply_async(eta=at, expires=at + timedelta(hours=6))
