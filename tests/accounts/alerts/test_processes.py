"""Exactly once across processes: two `send_alerts` processes released at
the same moment against one period, and a process killed while the SMTP
server holds its message; real PostgreSQL, a real SMTP server on loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from accounts.alerts.models import AlertMail, AlertMailItem
from accounts.alerts.sending import send_alerts
from tests.accounts.alerts.world import DAY, day_of_papers, follows, reader

pytestmark = pytest.mark.django_db(transaction=True)
READERS = 6


@pytest.fixture
def readers():
    users = [reader(f"reader{n}") for n in range(READERS)]
    for user in users:
        follows(user)
    day_of_papers()
    return users


def _env(subprocess_env: dict[str, str]) -> dict[str, str]:
    return {**subprocess_env, "EMAIL_URL": f"smtp://127.0.0.1:{settings.EMAIL_PORT}"}


def _command(manage_py: list[str]) -> list[str]:
    return [*manage_py, "send_alerts", "--frequency", "daily", "--day", DAY.isoformat()]


def _waiting_on_alertmail() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'accounts_alertmail'::regclass")
        return cursor.fetchone()[0]


def test_two_processes_released_together_send_each_alert_once(readers, mailbox, subprocess_env, manage_py):
    env = _env(subprocess_env)
    with transaction.atomic():
        # Both runs block on their first claim until this lock goes, then race.
        with connection.cursor() as cursor:
            cursor.execute("LOCK TABLE accounts_alertmail IN EXCLUSIVE MODE")
        processes = [
            subprocess.Popen(_command(manage_py), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        deadline = time.monotonic() + 60
        while _waiting_on_alertmail() < 2:
            assert time.monotonic() < deadline, "the two runs never reached their claims"
            assert all(process.poll() is None for process in processes), processes[0].communicate()
            time.sleep(0.05)
    outputs = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    sent = [int(out.split(": ", 1)[1].split(" sent", 1)[0]) for out, _ in outputs]
    assert sum(sent) == READERS, outputs
    # The loser found every claim taken (it blocked on the winner's rows, then skipped them).
    assert any(f"{READERS} already claimed" in out for out, _ in outputs), outputs
    for user in readers:
        assert len(mailbox.to(user.email)) == 1, user.username
    assert AlertMail.objects.filter(status="sent").count() == READERS
    assert AlertMailItem.objects.count() == 2 * READERS


def test_a_send_killed_mid_hand_off_is_taken_over_after_its_lease_and_sent_once(
    readers, mailbox, subprocess_env, manage_py
):
    mailbox.hold_data = True
    process = subprocess.Popen(
        _command(manage_py), env=_env(subprocess_env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        assert mailbox.holding.wait(timeout=60), "the run never reached the SMTP hand-off"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    mailbox.hold_data = False
    mailbox.release.set()
    # The batch was marked `sending` with its items before the first hand-off.
    held = list(AlertMail.objects.order_by("user_id"))
    assert [mail.status for mail in held] == ["sending"] * READERS
    items = {mail.pk: list(mail.items.order_by("id").values_list("id", flat=True)) for mail in held}
    assert all(items.values()) and mailbox.messages == []
    # Within the lease a new run leaves the claims alone (their worker might be slow).
    assert send_alerts(frequency="daily", day=DAY).sent == 0
    assert mailbox.messages == []
    later = timezone.now() + timedelta(seconds=settings.ALERT_CLAIM_LEASE_SECONDS + 1)
    assert send_alerts(frequency="daily", day=DAY, now=later).sent == READERS
    for mail in held:
        (message,) = mailbox.to(mail.address)
        mail.refresh_from_db()
        assert mail.status == "sent" and message["Message-ID"] == mail.message_id
        assert list(mail.items.order_by("id").values_list("id", flat=True)) == items[mail.pk]
    assert send_alerts(frequency="daily", day=DAY, now=later + timedelta(hours=1)).sent == 0
    assert len(mailbox.messages) == READERS
