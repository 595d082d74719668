"""Delivery of the trail outside the site: email alerts (one AlertMail per
user, frequency and period, with the trail items it held) and the private
Atom feeds' secret. Named "alerts" so that nothing here is confused with the
digests app, which writes the AI guided readings."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from accounts.follows.models import Follow
from accounts.trail.models import CardKind


def new_feed_secret() -> str:
    return secrets.token_urlsafe(32)


class AlertSettings(models.Model):
    """A user's delivery state: the feed secret (a capability: whoever holds
    the URL reads the feed, so it is rotatable), the weekday of the weekly
    alert, "unsubscribed from everything", and an address that refused mail
    permanently (mail to it stops until the user changes it or asks again)."""

    class Weekday(models.IntegerChoices):
        # Announcement days as arXiv dates them (Monday to Friday listings).
        MONDAY = 0, "Monday"
        TUESDAY = 1, "Tuesday"
        WEDNESDAY = 2, "Wednesday"
        THURSDAY = 3, "Thursday"
        FRIDAY = 4, "Friday"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="alert_settings"
    )
    feed_secret = models.CharField(max_length=64, unique=True, default=new_feed_secret)
    feed_secret_rotated_at = models.DateTimeField(null=True, blank=True)
    weekly_day = models.PositiveSmallIntegerField(choices=Weekday.choices, default=Weekday.MONDAY)
    unsubscribed_all = models.BooleanField(default=False, help_text="no alert at all until resubscribed")
    unsubscribed_at = models.DateTimeField(null=True, blank=True)
    failing_address = models.CharField(
        max_length=254, blank=True, help_text="the address that refused mail permanently (5xx); empty when none"
    )
    failing_since = models.DateTimeField(null=True, blank=True)
    failing_reason = models.TextField(blank=True)

    class Meta:
        verbose_name = gettext_lazy("alert settings")
        verbose_name_plural = gettext_lazy("alert settings")

    def __str__(self) -> str:
        return f"alert settings of {self.user_id}"

    def is_failing(self, address: str) -> bool:
        return bool(self.failing_address) and self.failing_address.lower() == address.lower()


class AlertMail(models.Model):
    """One alert: built and sent once per (user, frequency, period). The row
    is inserted as the claim (the unique constraint lets one worker win), its
    items are recorded before the mail is handed to SMTP, and `token` names
    the run that holds it, so a stale claim (a killed worker) is taken over
    by a later run with a conditional update."""

    class Frequency(models.TextChoices):
        DAILY = "daily", "daily"
        WEEKLY = "weekly", "weekly"

    class Status(models.TextChoices):
        CLAIMED = "claimed", "claimed"
        SENDING = "sending", "sending"
        SENT = "sent", "sent"
        EMPTY = "empty", "nothing new"
        RETRY = "retry", "waiting to retry"
        FAILED = "failed", "failed"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    frequency = models.CharField(max_length=8, choices=Frequency.choices)
    period = models.DateField(help_text="daily: the announcement day; weekly: the Monday of its week")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CLAIMED)
    token = models.CharField(max_length=32, help_text="the run holding the claim")
    claimed_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    address = models.CharField(max_length=254, blank=True)
    item_count = models.PositiveIntegerField(default=0)
    message_id = models.CharField(max_length=255, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name = gettext_lazy("alert email")
        verbose_name_plural = gettext_lazy("alert emails")
        constraints = [
            models.UniqueConstraint(fields=["user", "frequency", "period"], name="alertmail_once_per_period"),
        ]
        indexes = [
            models.Index(fields=["user", "frequency", "-period"], name="alertmail_user_idx"),
            models.Index(fields=["next_attempt_at"], condition=models.Q(status="retry"), name="alertmail_retry_idx"),
            models.Index(fields=["status", "-period"], name="alertmail_status_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.frequency} alert of {self.user_id} for {self.period} ({self.status})"


class AlertMailItem(models.Model):
    """A paper version one alert held. Unique per (user, paper, version): a
    version is mailed once, whatever the frequency, and the next alert
    starts after it."""

    mail = models.ForeignKey(AlertMail, on_delete=models.CASCADE, related_name="items", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    paper = models.ForeignKey("harvest.Paper", on_delete=models.CASCADE, related_name="+", db_index=False)
    version_number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=CardKind.choices)
    follow_ids = models.JSONField(default=list, help_text="the daily or weekly follows that matched it")

    class Meta:
        verbose_name = gettext_lazy("alert email item")
        verbose_name_plural = gettext_lazy("alert email items")
        constraints = [
            models.UniqueConstraint(fields=["user", "paper", "version_number"], name="alertmailitem_once"),
        ]
        indexes = [models.Index(fields=["mail"], name="alertmailitem_mail_idx")]

    def __str__(self) -> str:
        return f"paper {self.paper_id} v{self.version_number} in mail {self.mail_id}"


class AlertUnsubscribe(models.Model):
    """A follow taken out of the alerts by an unsubscribe link, with the
    delivery it had, so that /me/ can put it back."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    follow = models.OneToOneField(Follow, on_delete=models.CASCADE, related_name="+")
    previous_delivery = models.CharField(max_length=16, choices=Follow.Delivery.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("alert unsubscription")
        verbose_name_plural = gettext_lazy("alert unsubscriptions")
        indexes = [models.Index(fields=["user"], name="alertunsubscribe_user_idx")]

    def __str__(self) -> str:
        return f"follow {self.follow_id} unsubscribed (was {self.previous_delivery})"
