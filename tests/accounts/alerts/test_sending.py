"""Email alerts end to end: the real matcher's trail, a real SMTP server on
loopback (the `mailbox` fixture), the mail as a client reads it."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.alerts.models import AlertMail, AlertMailItem, AlertSettings
from accounts.alerts.sending import due_day, retry_due_alerts, send_alerts
from accounts.recommend.models import Recommendation
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.alerts.world import DAY, announce, day_of_papers, follows, reader
from tests.accounts.conftest import ago, harvest, record

# Calendar: when an alert is due follows arXiv's announcements, and the items are the window before now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]
DAILY, WEEKLY = "daily", "weekly"


def _parts(message) -> dict[str, str]:
    return {part.get_content_type(): part.get_content() for part in message.walk() if not part.is_multipart()}


def test_a_daily_alert_holds_the_daily_follows_items_in_html_and_text_with_one_click_unsubscribe(mailbox):
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    run = send_alerts(frequency=DAILY, day=DAY)
    assert (run.sent, run.papers) == (1, 2)
    (message,) = mailbox.to("alice@example.org")
    assert message["Subject"].strip() == "[研踪 PaperTrail] 2 new papers for 2026-12-01"
    parts = _parts(message)
    assert set(parts) == {"text/plain", "text/html"}
    text, html = parts["text/plain"], parts["text/html"]
    for body in (text, html):
        assert "New paper · v1" in body and "Revision · v2" in body
        assert "Sparse attention for long documents" in body and "Old learning paper" in body
        assert "Ada Lovelace, Alan Turing" in body and "cs.LG" in body
        assert "Takeaway: Sparse attention halves the cost." in body  # the reading's takeaway, ASCII colon in English
        assert "v2: new experiments" in body  # what changed in the revision
        assert "http://127.0.0.1:8000/papers/2611.00001/" in body and "https://arxiv.org/abs/2611.00001v1" in body
        # Trail-only and weekly follows' papers are not in the daily alert.
        assert "Walking robots" not in body and "Parsing with grammars" not in body
    assert "<h2" in html and "Learning" in html
    # Times in the reader's zone (Beijing time here, 8 hours ahead of UTC).
    assert re.search(r"as of \d{4}-\d\d-\d\d \d\d:\d\d \(Asia/Shanghai\)", text)
    local_hour = timezone.localtime(timezone.now(), ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%d %H:")
    assert local_hour in text or local_hour in html
    unsubscribe = re.fullmatch(r"<(http://127\.0\.0\.1:8000/unsubscribe/[^/>]+/)>", message["List-Unsubscribe"].strip())
    assert unsubscribe and message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe.group(1) in text
    mail = AlertMail.objects.get(user=alice)
    assert (mail.status, mail.item_count, mail.period) == ("sent", 2, DAY)
    assert message["Message-ID"] == mail.message_id


def test_a_chinese_reader_gets_the_alert_in_chinese(mailbox):
    wang = reader("wang", language="zh-hans")
    follows(wang)
    day_of_papers()
    send_alerts(frequency=DAILY, day=DAY)
    (message,) = mailbox.to("wang@example.org")
    assert "2 篇" in message["Subject"] and "2026-12-01" in message["Subject"]
    text = _parts(message)["text/plain"]
    assert "新论文 · v1" in text and "修订 · v2" in text and "稀疏注意力省一半" in text
    assert "一句话要点：稀疏注意力省一半" in text and "我的足迹：http" in text  # full-width colons in Chinese


def test_a_period_is_sent_once_and_the_next_alert_starts_after_it(mailbox):
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    send_alerts(frequency=DAILY, day=DAY)
    again = send_alerts(frequency=DAILY, day=DAY)
    assert (again.sent, again.skipped) == (0, 1)
    # The next announcement: nothing new is no mail at all.
    nothing = send_alerts(frequency=DAILY, day=DAY + timedelta(days=1))
    assert (nothing.sent, nothing.empty) == (0, 1)
    assert len(mailbox.to("alice@example.org")) == 1
    harvest(record("2611.00005", title="Another learning paper", categories=["cs.LG"]), at=ago(minutes=30))
    send_alerts(frequency=DAILY, day=DAY + timedelta(days=2))
    latest = mailbox.to("alice@example.org")[-1]
    assert latest["Subject"].endswith("1 new paper for 2026-12-03")
    body = _parts(latest)["text/plain"]
    assert "Another learning paper" in body and "Sparse attention" not in body
    assert AlertMailItem.objects.filter(user=alice).count() == 3


def test_no_alert_on_a_friday_a_saturday_or_a_holiday(mailbox, settings):
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    friday_evening = datetime(2026, 12, 4, 22, 0, tzinfo=ZoneInfo("America/New_York"))
    saturday = friday_evening + timedelta(days=1)
    for moment in (friday_evening, saturday):
        assert due_day(now=moment) is None
        assert send_alerts(frequency=DAILY, now=moment).reason.startswith("no announcement")
    # Monday evening after the feed's harvest: Tuesday's listing is due.
    monday_evening = friday_evening + timedelta(days=3)
    announce(date(2026, 12, 8))
    assert due_day(now=monday_evening) == date(2026, 12, 8)
    # The feed is in use but this listing is not stored yet: wait for it.
    assert due_day(now=monday_evening + timedelta(days=1)) is None
    # A holiday evening: no announcement, no alert (and --day refuses it).
    settings.PAPERTRAIL_ARXIV_HOLIDAYS = frozenset({date(2026, 12, 8)})
    assert due_day(now=monday_evening + timedelta(days=1, hours=1)) is None
    assert send_alerts(frequency=DAILY, day=date(2026, 12, 9)).reason.startswith("no announcement")
    with pytest.raises(CommandError, match="--day"):
        call_command("send_alerts", "--day", "2026-12-05")
    assert mailbox.messages == []
    assert not AlertMail.objects.exists()


def test_the_weekly_alert_goes_on_the_chosen_day_once_a_week(mailbox):
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    AlertSettings.objects.filter(user=alice).update(weekly_day=AlertSettings.Weekday.WEDNESDAY)
    assert send_alerts(frequency=WEEKLY, day=DAY).users == 0  # Tuesday: not yet
    wednesday = send_alerts(frequency=WEEKLY, day=DAY + timedelta(days=1))
    assert wednesday.sent == 1
    thursday = send_alerts(frequency=WEEKLY, day=DAY + timedelta(days=2))
    assert (thursday.sent, thursday.skipped) == (0, 1)
    (message,) = mailbox.to("alice@example.org")
    assert message["Subject"].endswith("2 new papers in the week of 2026-11-30")
    body = _parts(message)["text/plain"]
    # The weekly follow's papers (cs.CL: the parsing paper and the cross-listed one).
    assert "Parsing with grammars" in body and "Sparse attention" in body and "Old learning paper" not in body


def test_a_paper_mailed_daily_is_not_mailed_again_weekly(mailbox):
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    send_alerts(frequency=DAILY, day=DAY)
    send_alerts(frequency=WEEKLY, day=DAY)
    weekly = mailbox.to("alice@example.org")[-1]
    assert "week of" in weekly["Subject"] and "1 new paper" in weekly["Subject"]
    assert "Sparse attention" not in _parts(weekly)["text/plain"]


def test_a_transient_failure_is_retried_later_and_then_sent(mailbox):
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    mailbox.transient["alice@example.org"] = 1
    run = send_alerts(frequency=DAILY, day=DAY)
    assert (run.sent, run.retry) == (0, 1)
    mail = AlertMail.objects.get(user=alice)
    assert mail.status == "retry" and mail.next_attempt_at > timezone.now() and "451" in mail.error
    assert retry_due_alerts().sent == 0  # not before its time
    assert retry_due_alerts(now=mail.next_attempt_at + timedelta(seconds=1)).sent == 1
    assert len(mailbox.to("alice@example.org")) == 1
    mail.refresh_from_db()
    assert (mail.status, mail.attempts) == ("sent", 2)


def test_transient_failures_stop_after_the_bounded_number_of_attempts(mailbox, settings):
    settings.ALERT_ATTEMPTS = 2
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    mailbox.transient["alice@example.org"] = 10
    send_alerts(frequency=DAILY, day=DAY)
    first = AlertMail.objects.get(user=alice).next_attempt_at
    second = retry_due_alerts(now=first + timedelta(seconds=1))
    assert (second.sent, second.failed) == (0, 1)
    mail = AlertMail.objects.get(user=alice)
    assert (mail.status, mail.attempts) == ("failed", 2)
    assert not AlertMailItem.objects.filter(mail=mail).exists()  # freed for a later alert
    assert not AlertSettings.objects.filter(user=alice).exclude(failing_address="").exists()
    assert mailbox.messages == []


def test_a_permanent_failure_marks_the_address_failing_and_the_others_still_get_theirs(mailbox):
    alice, bob = reader("alice"), reader("bob")
    follows(alice)
    follows(bob)
    day_of_papers()
    mailbox.refused["alice@example.org"] = "550 5.1.1 No such user"
    run = send_alerts(frequency=DAILY, day=DAY)
    assert (run.sent, run.failed) == (1, 1)
    assert len(mailbox.to("bob@example.org")) == 1 and mailbox.to("alice@example.org") == []
    alert_settings = AlertSettings.objects.get(user=alice)
    assert alert_settings.failing_address == "alice@example.org" and "550" in alert_settings.failing_reason
    # No more mail to the failing address; bob's next alert still goes.
    harvest(record("2611.00005", categories=["cs.LG"]), at=ago(minutes=30))
    later = send_alerts(frequency=DAILY, day=DAY + timedelta(days=1))
    assert later.users == 1 and later.sent == 1


def test_without_a_mail_server_nothing_is_claimed_or_sent(settings, mailbox):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    assert send_alerts(frequency=DAILY, day=DAY).reason.startswith("no mail configured")
    assert not AlertMail.objects.exists() and mailbox.messages == []


def test_unsubscribed_from_everything_gets_nothing(mailbox):
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    AlertSettings.objects.filter(user=alice).update(unsubscribed_all=True)
    assert send_alerts(frequency=DAILY, day=DAY).users == 0
    assert mailbox.messages == []


def test_the_command_shows_a_dry_run_and_progress_and_sends_a_period_once(mailbox, capsys):
    alice = reader("alice")
    follows(alice)
    reader("carol")  # no mailed follow
    day_of_papers()
    call_command("send_alerts", "--frequency", "daily", "--day", "2026-12-01", "--dry-run")
    out = capsys.readouterr().out
    assert "alice: 2 papers" in out and "carol" not in out
    assert not AlertMail.objects.exists() and mailbox.messages == []
    call_command("send_alerts", "--frequency", "daily", "--day", "2026-12-01", "--user", "alice")
    captured = capsys.readouterr()
    assert "1/1 users" in captured.err and "1 sent (2 papers)" in captured.out
    call_command("send_alerts", "--frequency", "daily", "--day", "2026-12-01")
    assert "0 sent" in capsys.readouterr().out
    assert len(mailbox.messages) == 1
    with pytest.raises(CommandError, match="--user: no user named nobody"):
        call_command("send_alerts", "--user", "nobody")


def test_the_beat_runs_the_alerts_after_each_announcement_in_us_eastern_time(settings):
    entry = settings.CELERY_BEAT_SCHEDULE["accounts-send-alerts"]
    assert (
        entry["task"] == "accounts.send_alerts" and entry["options"]["expires"] < 90 * 60
    )  # shorter than the shortest gap
    schedule = entry["schedule"]
    assert schedule.zone == "America/New_York"
    eastern = ZoneInfo("America/New_York")
    friday_noon = datetime(2026, 12, 4, 12, 0, tzinfo=eastern)
    runs = [run.astimezone(eastern) for run in schedule.next_runs(after=friday_noon, count=3)]
    # Nothing on Friday evening or Saturday: Sunday's announcement is the next.
    assert [(run.strftime("%a %H:%M")) for run in runs] == ["Sun 22:00", "Sun 23:30", "Mon 09:00"]


def test_the_recommended_section_is_off_by_default_and_names_the_saved_papers_when_on(mailbox, settings):

    alice, bob = reader("alice"), reader("bob")
    follows(alice)
    follows(bob)
    day_of_papers()
    harvest(
        record("2611.00090", title="A paper Alice saved"),
        # Outside every follow: recommendations are what the follows did not bring.
        record("2611.00091", title="Sparse experts", categories=["q-bio.NC"]),
        at=ago(days=2),
    )
    saved, suggested = Paper.objects.get(arxiv_id="2611.00090"), Paper.objects.get(arxiv_id="2611.00091")
    for user in (alice, bob):
        record_save(user=user, paper=saved)
        Recommendation.objects.create(
            user=user, paper=suggested, score=1.0, reasons={"neighbours": [[saved.pk, 0.8]]}, event_at=ago(days=1)
        )
    send_alerts(frequency=DAILY, day=DAY, usernames=["bob"])
    assert "Recommended for you" not in _parts(mailbox.to("bob@example.org")[0])["text/plain"]
    settings.RECOMMEND_IN_ALERTS = True
    send_alerts(frequency=DAILY, day=DAY, usernames=["alice"])
    parts = _parts(mailbox.to("alice@example.org")[0])
    for body in parts.values():
        assert "Recommended for you" in body and "Sparse experts" in body
        assert "Close to what you saved" in body and "A paper Alice saved" in body
        assert "http://127.0.0.1:8000/papers/2611.00091/" in body
