from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

DEFAULT_LANGUAGE = "zh-hans"
DEFAULT_TIME_ZONE = "Asia/Shanghai"


def validate_time_zone(value: str) -> None:
    """An IANA zone name that zoneinfo knows, such as Europe/Berlin."""
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError("%(value)s is not a time zone name", params={"value": value}, code="time_zone") from None


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in sorted(available_timezones())]


class User(AbstractUser):
    """PaperTrail's user: Django's user, owned by this project so that fields
    can be added without a swap later: identity and how pages are shown.
    `language`, `time_zone` and `card_density` are applied to every page the
    user sees while signed in; the trail's side of a user is its own
    (accounts.trail.models.TrailProfile)."""

    class Language(models.TextChoices):
        ZH_HANS = "zh-hans", "简体中文"
        EN = "en", "English"

    language = models.CharField(max_length=8, choices=Language.choices, default=DEFAULT_LANGUAGE)
    time_zone = models.CharField(max_length=64, default=DEFAULT_TIME_ZONE, validators=[validate_time_zone])

    class CardDensity(models.TextChoices):
        COMPACT = "compact", gettext_lazy("Compact: title, authors and one line; the rest opens in place")
        FULL = "full", gettext_lazy("Full: every abstract and reading shown")

    card_density = models.CharField(
        max_length=8, choices=CardDensity.choices, default=CardDensity.COMPACT, db_default=CardDensity.COMPACT
    )


class ApiToken(models.Model):
    """A named API token of a user. The secret is shown once, when the token is
    created; only its SHA-256 is stored. The secret is long and random, so a
    fast hash cannot be brute-forced, and the public `prefix` finds the row in
    one indexed lookup before the hashes are compared in constant time."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True, help_text="public part of the token, for lookup")
    secret_hash = models.CharField(max_length=64, help_text="SHA-256 of the secret (hex); never the secret")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("API token")
        verbose_name_plural = gettext_lazy("API tokens")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="apitoken_user_created_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
