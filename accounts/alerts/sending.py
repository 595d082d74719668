"""Email alerts of the trail: when they are due, and a run that builds and
sends each (user, frequency, period) alert once.

When: a daily alert follows each arXiv announcement (Sunday to Thursday
20:00 US Eastern, holidays skipped: harvest.completeness reckons them), for
the listing day that announcement carries, once the announcement feed's
harvest has stored it (an Announcement row); a weekly alert goes out at the
first announcement on or after the user's chosen weekday, once per week.
On a Friday, a Saturday or a holiday no announcement is due and nothing is sent.

Once: a run claims a batch of users by inserting their AlertMail rows (the
unique (user, frequency, period) lets one run win; the others skip), records
the items the mail holds, marks it `sending`, hands it to SMTP and marks it
`sent`. A claim older than the lease (its worker died) is taken over with a
conditional update on its run token, rebuilt from its recorded items and
sent with the same Message-ID.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts.alerts.items import AlertPapers, alert_contents, candidate_items, record_items
from accounts.alerts.mail import Sender, build_message, mail_configured
from accounts.alerts.models import AlertMail, AlertMailItem, AlertSettings
from accounts.follows.models import Follow
from accounts.models import User
from accounts.shared.commits import relaxed_commits
from harvest.completeness import is_listing_day, latest_expected_announcement, listing_day
from harvest.models import Announcement

logger = logging.getLogger(__name__)

# A run more than this long after the latest scheduled announcement finds no
# alert due (Friday and Saturday evenings are more than a day after Thursday's).
DUE_WINDOW = timedelta(hours=20)
# The announcement feed is taken to be harvested here when it recorded a day
# in this span; a library without it goes by arXiv's schedule alone.
FEED_IN_USE = timedelta(days=14)
FREQUENCIES = (AlertMail.Frequency.DAILY, AlertMail.Frequency.WEEKLY)


@dataclass
class AlertRun:
    frequency: str
    day: date | None = None
    period: date | None = None
    reason: str = ""
    users: int = 0
    sent: int = 0
    empty: int = 0
    skipped: int = 0
    retry: int = 0
    failed: int = 0
    papers: int = 0
    dry_run_items: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        if self.reason:
            return f"{self.frequency}: {self.reason}"
        return (
            f"{self.frequency} alerts for {self.day}: {self.sent} sent ({self.papers} papers), {self.empty} with "
            f"nothing new, {self.retry} to retry, {self.failed} failed, {self.skipped} already claimed"
        )


def due_day(*, now: datetime) -> date | None:
    """The listing day whose alerts are due at `now`, or None (no
    announcement in the last DUE_WINDOW, or its harvest is not stored yet)."""
    announced = latest_expected_announcement(at=now)
    if now - announced > DUE_WINDOW:
        return None
    day = listing_day(announced)
    if Announcement.objects.filter(announced_on=day).exists():
        return day
    feed_recent = Announcement.objects.filter(announced_on__gte=day - FEED_IN_USE.days * timedelta(days=1)).exists()
    return None if feed_recent else day


def period_of(day: date, frequency: str) -> date:
    return day if frequency == AlertMail.Frequency.DAILY else day - timedelta(days=day.weekday())


def recipients(*, frequency: str, day: date, usernames: list[str] | None = None):
    """Users with a follow of this delivery, an address, not unsubscribed from
    everything and (weekly) whose weekday has come; ordered by id."""
    users = User.objects.filter(is_active=True).exclude(email="")
    users = users.filter(Exists(Follow.objects.filter(user=OuterRef("pk"), delivery=frequency)))
    stopped = AlertSettings.objects.filter(user=OuterRef("pk")).filter(
        Q(unsubscribed_all=True) | Q(failing_address__iexact=OuterRef("email"))
    )
    if frequency == AlertMail.Frequency.WEEKLY:
        stopped = AlertSettings.objects.filter(user=OuterRef("pk")).filter(
            Q(unsubscribed_all=True) | Q(failing_address__iexact=OuterRef("email")) | Q(weekly_day__gt=day.weekday())
        )
    users = users.exclude(Exists(stopped))
    if usernames:
        users = users.filter(username__in=usernames)
    return users.order_by("pk")


def _claim(*, user_ids: list[int], frequency: str, period: date, token: str, now: datetime) -> list[AlertMail]:
    """The batch's mails this run holds: new claims, stale ones taken over and
    transient failures whose retry time has come."""
    with transaction.atomic():
        AlertMail.objects.bulk_create(
            [
                AlertMail(user_id=user_id, frequency=frequency, period=period, token=token, claimed_at=now)
                for user_id in user_ids
            ],
            ignore_conflicts=True,
        )
    lease = timedelta(seconds=settings.ALERT_CLAIM_LEASE_SECONDS)
    ours = AlertMail.objects.filter(user_id__in=user_ids, frequency=frequency, period=period)
    # The token is this run's own: what holds it now was inserted just now (and has no items).
    inserted = set(ours.filter(token=token).values_list("pk", flat=True))
    ours.filter(
        Q(status__in=[AlertMail.Status.CLAIMED, AlertMail.Status.SENDING], claimed_at__lt=now - lease)
        | Q(status=AlertMail.Status.RETRY, next_attempt_at__lte=now)
    ).exclude(token=token).update(token=token, claimed_at=now)
    mails = list(
        ours.filter(token=token)
        .exclude(status__in=[AlertMail.Status.SENT, AlertMail.Status.EMPTY, AlertMail.Status.FAILED])
        .order_by("user_id")
    )
    for mail in mails:
        mail.inserted = mail.pk in inserted
    return mails


def _set(mail: AlertMail, token: str, **fields) -> bool:
    """A conditional update: only the run holding the claim writes."""
    return AlertMail.objects.filter(pk=mail.pk, token=token).update(**fields) == 1


_USER_FIELDS = ("id", "email", "language", "time_zone", "username")


class _Statistics:
    """A day's run adds tens of items per mail to AlertMailItem; read back by
    mail ids, the rows are found by index only while the planner knows the
    table's size. So the run gathers the delivery tables' statistics itself
    whenever they grew by a fifth (as autovacuum would, where it is off or
    behind): a handful of ANALYZEs of sampled rows a run."""

    def __init__(self) -> None:
        self.rows = AlertMailItem.objects.count() if connection.vendor == "postgresql" else 0
        self.added = 0

    def grew(self, added: int) -> None:
        self.added += added
        if connection.vendor != "postgresql" or self.added < max(5_000, self.rows // 5):
            return
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE accounts_alertmailitem, accounts_alertmail")
        self.rows += self.added
        self.added = 0


def _deliver(
    mails: list[AlertMail],
    users: dict[int, User],
    *,
    token: str,
    sender: Sender,
    run: AlertRun,
    now: datetime,
    papers: AlertPapers,
    statistics: _Statistics | None = None,
) -> None:
    counts = record_items(mails=mails, frequency=run.frequency, now=now)
    if statistics is not None:
        statistics.grew(sum(counts.values()))
    full = [mail for mail in mails if counts[mail.pk]]
    empty = [mail.pk for mail in mails if not counts[mail.pk]]
    contents = alert_contents(mails=full, users=users, papers=papers) if full else []
    # Every item's paper or follow may have gone since it was recorded.
    empty += [content.mail.pk for content in contents if not content.paper_count]
    if empty:
        run.empty += AlertMail.objects.filter(pk__in=empty, token=token).update(
            status=AlertMail.Status.EMPTY, item_count=0
        )
    outgoing = []
    for content in contents:
        if content.paper_count:
            message = build_message(content)
            mail = content.mail
            mail.status, mail.attempts = AlertMail.Status.SENDING, mail.attempts + 1
            mail.address, mail.item_count = content.user.email, content.paper_count
            mail.message_id = message.extra_headers["Message-ID"]
            outgoing.append((content, message))
    if not outgoing:
        return
    # One statement marks the batch `sending` (its items are recorded): from
    # here a claim taken over after its lease is sent again, with the same
    # Message-ID, since it may have been handed over.
    fields = ["status", "attempts", "address", "item_count", "message_id"]
    AlertMail.objects.filter(token=token).bulk_update([content.mail for content, _ in outgoing], fields)
    ours = set(
        AlertMail.objects.filter(
            pk__in=[content.mail.pk for content, _ in outgoing], token=token, status=AlertMail.Status.SENDING
        ).values_list("pk", flat=True)
    )
    for content, message in outgoing:
        mail, user = content.mail, content.user
        if mail.pk not in ours:
            run.skipped += 1
            continue
        outcome = sender.send(message)
        if outcome.sent:
            _set(mail, token, status=AlertMail.Status.SENT, sent_at=timezone.now(), error="")
            run.sent += 1
            run.papers += content.paper_count
        elif outcome.permanent:
            _fail(mail, token, user=user, error=outcome.error, address_failing=True)
            run.failed += 1
        else:
            _retry_later(mail, token, user=user, error=outcome.error, run=run)


def _retry_later(mail: AlertMail, token: str, *, user: User, error: str, run: AlertRun) -> None:
    attempts = mail.attempts
    if attempts >= settings.ALERT_ATTEMPTS:
        _fail(mail, token, user=user, error=error, address_failing=False)
        run.failed += 1
        return
    wait = timedelta(seconds=settings.ALERT_RETRY_SECONDS * 2 ** (attempts - 1))
    _set(mail, token, status=AlertMail.Status.RETRY, next_attempt_at=timezone.now() + wait, error=error)
    run.retry += 1


@transaction.atomic
def _fail(mail: AlertMail, token: str, *, user: User, error: str, address_failing: bool) -> None:
    """Given up: its items are freed for a later alert; a 5xx for the
    address stops mail to it until the user changes it or asks again."""
    if not _set(mail, token, status=AlertMail.Status.FAILED, error=error, next_attempt_at=None):
        return
    AlertMailItem.objects.filter(mail=mail).delete()
    if address_failing:
        AlertSettings.objects.get_or_create(user=user)
        AlertSettings.objects.filter(user=user).update(
            failing_address=user.email, failing_since=timezone.now(), failing_reason=error
        )


def send_alerts(
    *,
    frequency: str,
    now: datetime | None = None,
    day: date | None = None,
    usernames: list[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> AlertRun:
    """Build and send the due alerts of one frequency; `day` names the
    listing day by hand (it must be an announcement day), else it is found
    from the schedule."""
    now = now or timezone.now()
    run = AlertRun(frequency)
    if not mail_configured():
        run.reason = "no mail configured (EMAIL_URL); nothing sent"
        return run
    run.day = day or due_day(now=now)
    if run.day is None or not is_listing_day(run.day):
        run.reason = "no announcement due; nothing sent"
        return run
    run.period = period_of(run.day, frequency)
    users = recipients(frequency=frequency, day=run.day, usernames=usernames)
    total = users.count()
    token = secrets.token_hex(16)
    last_id = 0
    papers = AlertPapers()
    statistics = _Statistics()
    with Sender() as sender, relaxed_commits():
        while True:
            batch = list(users.filter(pk__gt=last_id).only(*_USER_FIELDS)[: settings.ALERT_BATCH_USERS])
            if not batch:
                break
            last_id = batch[-1].pk
            run.users += len(batch)
            mails = _claim(user_ids=[u.pk for u in batch], frequency=frequency, period=run.period, token=token, now=now)
            run.skipped += len(batch) - len(mails)
            if mails:
                by_id = {u.pk: u for u in batch}
                _deliver(
                    mails, by_id, token=token, sender=sender, run=run, now=now, papers=papers, statistics=statistics
                )
            if progress is not None:
                progress(run.users, total)
    logger.info("%s", run.summary())
    return run


def retry_due_alerts(*, now: datetime | None = None) -> AlertRun:
    """Send again the alerts of any period whose transient failure's wait is over."""
    now = now or timezone.now()
    run = AlertRun("retry")
    if not mail_configured():
        run.reason = "no mail configured (EMAIL_URL); nothing sent"
        return run
    token = secrets.token_hex(16)
    due = AlertMail.objects.filter(status=AlertMail.Status.RETRY, next_attempt_at__lte=now)
    with Sender() as sender:
        for frequency in FREQUENCIES:
            ids = list(due.filter(frequency=frequency).values_list("pk", flat=True)[:10_000])
            for start in range(0, len(ids), settings.ALERT_BATCH_USERS):
                chunk = ids[start : start + settings.ALERT_BATCH_USERS]
                AlertMail.objects.filter(pk__in=chunk, status=AlertMail.Status.RETRY, next_attempt_at__lte=now).update(
                    token=token, claimed_at=now
                )
                mails = list(AlertMail.objects.filter(pk__in=chunk, token=token).order_by("pk"))
                users = {u.pk: u for u in User.objects.filter(pk__in=[m.user_id for m in mails]).only(*_USER_FIELDS)}
                run.frequency = frequency
                _deliver(mails, users, token=token, sender=sender, run=run, now=now, papers=AlertPapers())
    run.frequency = "retry"
    return run


def next_retry_at() -> datetime | None:
    return (
        AlertMail.objects.filter(status=AlertMail.Status.RETRY)
        .order_by("next_attempt_at")
        .values_list("next_attempt_at", flat=True)
        .first()
    )


def preview_alerts(
    *, frequency: str, now: datetime | None = None, day: date | None = None, usernames: list[str] | None = None
) -> tuple[AlertRun, list[tuple[str, int]]]:
    """What a run would send, claiming and sending nothing: (username, papers)
    for each user whose alert of the period is not claimed yet."""
    now = now or timezone.now()
    run = AlertRun(frequency)
    run.day = day or due_day(now=now)
    if run.day is None:
        run.reason = "no announcement due; nothing would be sent"
        return run, []
    run.period = period_of(run.day, frequency)
    users = recipients(frequency=frequency, day=run.day, usernames=usernames).exclude(
        Exists(AlertMail.objects.filter(user=OuterRef("pk"), frequency=frequency, period=run.period))
    )
    rows: list[tuple[str, int]] = []
    last_id = 0
    while batch := list(users.filter(pk__gt=last_id).only(*_USER_FIELDS)[: settings.ALERT_BATCH_USERS]):
        last_id = batch[-1].pk
        # Unsaved rows with negative ids stand for the mails a run would claim.
        mails = [AlertMail(pk=-user.pk, user_id=user.pk, frequency=frequency, period=run.period) for user in batch]
        found = candidate_items(mails, frequency, now)
        held = set(
            AlertMailItem.objects.filter(user_id__in=[u.pk for u in batch]).values_list(
                "user_id", "paper_id", "version_number"
            )
        )
        for user in batch:
            count = sum((user.pk, *key) not in held for key in found[-user.pk])
            rows.append((user.username, count))
    run.users = len(rows)
    return run, rows
