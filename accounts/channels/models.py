"""Chat channels: a researcher's Feishu/Lark, WeCom, DingTalk, Slack,
Telegram, Discord, ntfy or plain JSON webhook, which gets the top of their
trail (or of one follow) at their rhythm, and each message it was sent.

The owner is a user or a lab group (exactly one, a check constraint): a group's
channel gets the group trail, in the group owner's language, and only that
owner manages it (docs/channels.md, "Lab channels")."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from accounts.follows.models import Follow
from accounts.groups.models import LabGroup


class Channel(models.Model):
    class Kind(models.TextChoices):
        FEISHU = "feishu", "Feishu"
        LARK = "lark", "Lark"
        WECOM = "wecom", "WeCom (企业微信)"
        DINGTALK = "dingtalk", "DingTalk (钉钉)"
        SLACK = "slack", "Slack"
        TELEGRAM = "telegram", "Telegram"
        DISCORD = "discord", "Discord"
        NTFY = "ntfy", "ntfy"
        WEBHOOK = "webhook", "JSON webhook"

    class Rhythm(models.TextChoices):
        ANNOUNCEMENT = "announcement", gettext_lazy("after each announcement")
        DAILY = "daily", gettext_lazy("daily")
        WEEKLY = "weekly", gettext_lazy("weekly")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="channels"
    )
    group = models.ForeignKey(
        LabGroup, null=True, blank=True, on_delete=models.CASCADE, related_name="channels", db_index=False
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    name = models.CharField(max_length=100)
    secret_encrypted = models.TextField(help_text="the webhook URL or bot token, Fernet-encrypted; never shown")
    target_host = models.CharField(max_length=255, blank=True, help_text="where messages go (not secret)")
    follow = models.ForeignKey(
        Follow, null=True, blank=True, on_delete=models.CASCADE, related_name="+", help_text="empty: the whole trail"
    )
    rhythm = models.CharField(max_length=16, choices=Rhythm.choices, default=Rhythm.ANNOUNCEMENT)
    top_n = models.PositiveSmallIntegerField(default=5)
    created_at = models.DateTimeField(default=timezone.now)
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_reason = models.TextField(blank=True)
    failures = models.PositiveSmallIntegerField(default=0, help_text="consecutive failed sends")
    tested_at = models.DateTimeField(null=True, blank=True)
    test_ok = models.BooleanField(null=True)
    test_error = models.TextField(blank=True)
    # The rate limit's token bucket (accounts.channels.ratelimit), kept on the row.
    bucket_tokens = models.FloatField(null=True, blank=True)
    bucket_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("chat channel")
        verbose_name_plural = gettext_lazy("chat channels")
        indexes = [
            models.Index(fields=["user", "id"], name="channel_user_idx"),
            models.Index(fields=["group", "id"], name="channel_group_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(user__isnull=False, group__isnull=True)
                | models.Q(user__isnull=True, group__isnull=False),
                name="channel_user_or_group",
            )
        ]

    def __str__(self) -> str:
        owner = f"group {self.group_id}" if self.group_id else str(self.user_id)
        return f"{self.get_kind_display()} channel {self.name!r} of {owner}"

    @property
    def paused(self) -> bool:
        return self.paused_at is not None


class ChannelSend(models.Model):
    """One message of a channel for one period (an announcement's listing
    day, a day or a week): inserted as the claim (unique per channel and
    period), its papers recorded before the send, `sending` before the HTTP
    request and `sent` after it."""

    class Status(models.TextChoices):
        CLAIMED = "claimed", "claimed"
        SENDING = "sending", "sending"
        SENT = "sent", "sent"
        EMPTY = "empty", "nothing new"
        RETRY = "retry", "waiting to retry"
        FAILED = "failed", "failed"

    channel = models.ForeignKey(Channel, on_delete=models.CASCADE, related_name="sends", db_index=False)
    period = models.DateField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CLAIMED)
    token = models.CharField(max_length=32, help_text="the run holding the claim")
    claimed_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    paper_ids = models.JSONField(default=list, help_text="the papers it holds, in order, recorded before the send")
    error = models.TextField(blank=True)

    class Meta:
        verbose_name = gettext_lazy("channel message")
        verbose_name_plural = gettext_lazy("channel messages")
        constraints = [models.UniqueConstraint(fields=["channel", "period"], name="channelsend_once_per_period")]
        indexes = [
            models.Index(fields=["next_attempt_at"], condition=models.Q(status="retry"), name="channelsend_retry_idx"),
        ]

    def __str__(self) -> str:
        return f"channel {self.channel_id} for {self.period} ({self.status})"
