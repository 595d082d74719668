"""Each (channel, period) is sent once, recorded before the send; a failure is
retried with backoff; repeated failures pause the channel and tell its owner;
a channel's rate limit puts messages off instead of waiting."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from accounts.channels.models import Channel, ChannelSend
from accounts.channels.ratelimit import take_token
from accounts.channels.sending import due_period, retry_due_sends, send_channels, send_test
from accounts.channels.tasks import retry_channels_task, send_channels_task
from accounts.follows.models import Follow
from tests.accounts.channels.world import PATHS, SUCCESS, add_channel, received
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db


def _failing(status: int = 500) -> Reply:
    return Reply(status=status, body=b"busy", content_type="text/plain")


def test_a_period_is_sent_once_whatever_runs_again(server, alice):
    add_channel(alice, server, "webhook", rhythm="daily")
    now = timezone.now()
    first = send_channels(now=now)
    again = send_channels(now=now + timedelta(minutes=15))
    retried = retry_due_sends(now=now + timedelta(hours=1))
    assert (first.sent, again.sent, again.skipped, retried.sent) == (1, 0, 1, 0)
    assert len(received(server, "webhook")) == 1
    assert ChannelSend.objects.get().status == "sent"


def test_the_beat_task_run_twice_sends_once(server, alice):
    """As when Celery delivers the task again (a worker lost after it ran)."""
    add_channel(alice, server, "slack", rhythm="daily")
    assert "1 sent" in send_channels_task.run()
    assert "0 sent" in send_channels_task.run()
    assert len(received(server, "slack")) == 1


def test_a_transient_failure_is_retried_with_backoff_and_sent_once(server, alice, settings):
    channel = add_channel(alice, server, "feishu", rhythm="daily")
    server.queue(PATHS["feishu"], _failing(503), _failing(500))
    now = timezone.now()
    send_channels(now=now)
    send = ChannelSend.objects.get(channel=channel)
    assert (send.status, send.attempts) == ("retry", 1)
    assert send.next_attempt_at == now + timedelta(seconds=settings.CHANNEL_RETRY_SECONDS)
    assert retry_due_sends(now=now + timedelta(seconds=settings.CHANNEL_RETRY_SECONDS - 1)).sent == 0  # not yet
    retry_due_sends(now=now + timedelta(seconds=settings.CHANNEL_RETRY_SECONDS))
    send.refresh_from_db()
    assert (send.status, send.attempts) == ("retry", 2)
    assert send.next_attempt_at == now + timedelta(seconds=3 * settings.CHANNEL_RETRY_SECONDS)  # doubled
    assert retry_due_sends(now=send.next_attempt_at).sent == 1
    assert retry_due_sends(now=send.next_attempt_at + timedelta(days=1)).sent == 0
    assert len(server.requests_to(PATHS["feishu"])) == 3
    send.refresh_from_db()
    assert send.status == "sent"
    # The three attempts carried the same message, recorded before the first.
    bodies = {request.body for request in server.requests_to(PATHS["feishu"])}
    assert len({json.dumps(json.loads(body)["card"]["header"]) for body in bodies}) == 1
    assert Channel.objects.get(pk=channel.pk).failures == 0


def test_a_provider_error_code_in_a_200_answer_is_a_failure(server, alice):
    channel = add_channel(alice, server, "wecom", rhythm="daily")
    server.queue(
        PATHS["wecom"],
        Reply(status=200, body=b'{"errcode": 93000, "errmsg": "invalid webhook url"}', content_type="application/json"),
    )
    send_channels(now=timezone.now())
    send = ChannelSend.objects.get(channel=channel)
    assert send.status == "failed" and "code 93000" in send.error and "secret" not in send.error


def test_repeated_failures_pause_the_channel_and_tell_the_owner(
    server, alice, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    channel = add_channel(alice, server, "dingtalk", rhythm="daily")
    server.default(PATHS["dingtalk"], _failing(502))
    now = timezone.now()
    send_channels(now=now)
    assert not Channel.objects.get(pk=channel.pk).paused  # not after one failure
    at = now
    with django_capture_on_commit_callbacks(execute=True):
        for _attempt in range(settings.CHANNEL_PAUSE_AFTER - 1):
            at = ChannelSend.objects.get(channel=channel).next_attempt_at or at
            retry_due_sends(now=at)
    channel.refresh_from_db()
    assert channel.paused and channel.failures == settings.CHANNEL_PAUSE_AFTER
    assert "HTTP 502" in channel.paused_reason and "dingtalk-secret-token" not in channel.paused_reason
    (message,) = mail.outbox
    assert message.to == ["alice@example.org"] and "paused" in message.subject
    assert "HTTP 502" in message.body and "dingtalk-secret-token" not in message.body
    # Paused: nothing more is tried, the next day neither.
    requests = len(server.requests_to(PATHS["dingtalk"]))
    assert requests == settings.CHANNEL_PAUSE_AFTER
    assert retry_due_sends(now=at + timedelta(days=1)).sent == 0
    assert send_channels(now=now + timedelta(days=1)).channels == 0
    assert len(server.requests_to(PATHS["dingtalk"])) == requests


def test_a_gone_webhook_fails_the_message_at_once(server, alice):
    channel = add_channel(alice, server, "discord", rhythm="daily")
    server.queue(PATHS["discord"], Reply(status=404, body=b'{"message": "Unknown Webhook", "code": 10015}'))
    run = send_channels(now=timezone.now())
    assert (run.failed, run.retry) == (1, 0)
    assert ChannelSend.objects.get(channel=channel).status == "failed"
    assert Channel.objects.get(pk=channel.pk).failures == 1


def test_a_webhook_whose_host_is_not_public_is_refused_without_a_request(server, alice, settings):
    """A plain webhook may name any host, and a public-looking name may point
    at the site's own network: at send time every address the name resolves
    to must be public (the stand-in is on loopback, so it must hear nothing)."""
    channel = add_channel(alice, server, "webhook", rhythm="daily")
    settings.CHANNEL_ANY_HOST = False
    run = send_channels(now=timezone.now())
    assert (run.sent, run.failed) == (0, 1)
    assert server.requests_to(PATHS["webhook"]) == []
    assert "not a public address" in ChannelSend.objects.get(channel=channel).error


def test_the_rate_limit_puts_a_message_off_instead_of_waiting(server, alice, settings):
    channel = add_channel(alice, server, "wecom", rhythm="daily")
    now = timezone.now()
    for _ in range(settings.CHANNEL_BURST):
        assert take_token(channel.pk, now=now) is None
    wait = take_token(channel.pk, now=now)
    assert wait == timedelta(seconds=60 / settings.CHANNEL_RATE_PER_MINUTE)
    run = send_channels(now=now)
    assert (run.sent, run.deferred) == (0, 1)
    assert received(server, "wecom") == []
    send = ChannelSend.objects.get(channel=channel)
    assert send.status == "retry" and send.attempts == 0 and send.next_attempt_at > now
    assert retry_due_sends(now=send.next_attempt_at).sent == 1
    assert len(received(server, "wecom")) == 1


def test_a_token_bucket_refills_at_the_rate(server, alice, settings):
    channel = add_channel(alice, server, "feishu")
    start = datetime(2026, 12, 1, 12, tzinfo=UTC)
    taken = sum(take_token(channel.pk, now=start + timedelta(seconds=s)) is None for s in range(60))
    # The burst, then one token every 60/rate seconds over the minute.
    assert taken == settings.CHANNEL_BURST + settings.CHANNEL_RATE_PER_MINUTE - 1


def test_a_test_message_is_marked_as_a_test_and_recorded_on_the_channel(server, alice):
    channel = add_channel(alice, server, "telegram")
    assert send_test(channel.pk) == "sent"
    (payload,) = received(server, "telegram")
    assert "This is a test message" in payload["text"] and "test message for “Telegram”" in payload["text"]
    channel.refresh_from_db()
    assert channel.test_ok is True and channel.tested_at is not None
    server.queue(PATHS["telegram"], Reply(status=401, body=b'{"ok": false, "error_code": 401}'))
    assert send_test(channel.pk).startswith("not sent")
    channel.refresh_from_db()
    assert channel.test_ok is False and "HTTP 401" in channel.test_error


def test_periods_follow_the_rhythm_in_the_owners_day(server, alice):
    channel = add_channel(alice, server, "ntfy", rhythm="daily")  # alice is in Beijing
    morning = datetime(2026, 12, 3, 0, 30, tzinfo=UTC)  # 08:30 Thursday in Beijing
    assert due_period(channel, now=morning, listing=None) == date(2026, 12, 3)
    assert due_period(channel, now=morning - timedelta(hours=1), listing=None) == date(2026, 12, 2)
    channel.rhythm = Channel.Rhythm.WEEKLY
    assert due_period(channel, now=morning, listing=None) == date(2026, 11, 30)  # the Monday
    channel.rhythm = Channel.Rhythm.ANNOUNCEMENT
    assert due_period(channel, now=morning, listing=date(2026, 12, 3)) == date(2026, 12, 3)
    assert due_period(channel, now=morning, listing=None) is None


def test_the_channel_tasks_run_on_their_own_queue(settings):
    for name in ("accounts.send_channels", "accounts.retry_channels", "accounts.channel_test"):
        assert settings.CELERY_TASK_ROUTES[name] == {"queue": "channels"}
    assert settings.CELERY_BEAT_SCHEDULE["accounts-send-channels"]["options"]["queue"] == "channels"
    assert retry_channels_task.name == "accounts.retry_channels"


def test_a_follow_channel_holds_only_that_follows_papers(server, alice):
    learning = Follow.objects.get(user=alice, name="Learning")
    add_channel(alice, server, "webhook", rhythm="daily", follow_id=learning.pk)
    send_channels(now=timezone.now())
    (payload,) = received(server, "webhook")
    assert {paper["arxiv_id"] for paper in payload["papers"]} == {"2611.00001", "2611.00002"}
    assert payload["title"].startswith("Learning · ") and payload["rest_url"].endswith(f"/trail/?follow={learning.pk}")
    assert SUCCESS["webhook"].status == 200
