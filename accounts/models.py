from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

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
    can be added without a swap later. `language` and `time_zone` are applied
    to every page the user sees while signed in."""

    class Language(models.TextChoices):
        ZH_HANS = "zh-hans", "简体中文"
        EN = "en", "English"

    language = models.CharField(max_length=8, choices=Language.choices, default=DEFAULT_LANGUAGE)
    time_zone = models.CharField(max_length=64, default=DEFAULT_TIME_ZONE, validators=[validate_time_zone])


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
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="apitoken_user_created_idx")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class Follow(models.Model):
    """Something a user follows: a category or archive, an author, a keyword
    query or a saved library view. `value` is what the user entered;
    `compiled` is derived from it at save time (normalised author variants,
    the parsed tsquery) so that matching a day of papers needs no parsing."""

    class Kind(models.TextChoices):
        CATEGORY = "category", "category"
        AUTHOR = "author", "author"
        QUERY = "query", "query"
        FILTERS = "filters", "filters"

    class Delivery(models.TextChoices):
        TRAIL = "trail", "trail"
        DAILY = "daily", "daily"
        WEEKLY = "weekly", "weekly"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows", db_index=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    name = models.CharField(max_length=200)
    value = models.JSONField(default=dict)
    compiled = models.JSONField(default=dict, help_text="derived from value at save time, read by matching")
    rejected_paper_ids = models.JSONField(default=list, blank=True, help_text='papers marked "not this person"')
    include_cross_lists = models.BooleanField(default=True)
    include_revisions = models.BooleanField(default=True)
    muted = models.BooleanField(default=False)
    delivery = models.CharField(max_length=16, choices=Delivery.choices, default=Delivery.TRAIL)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # (user, id) serves the user's list and the matcher's stream in user order.
        indexes = [models.Index(fields=["user", "id"], name="follow_user_idx")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.name}"


class Exclusion(models.Model):
    """A category (code or archive) or a keyword query kept out of every one of
    a user's follows."""

    class Kind(models.TextChoices):
        CATEGORY = "category", "category"
        QUERY = "query", "query"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="exclusions", db_index=False
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    value = models.CharField(max_length=200)
    compiled = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind", "value"], name="exclusion_unique")]

    def __str__(self) -> str:
        return f"not {self.kind} {self.value}"


class TrailItem(models.Model):
    """One card of a user's trail: a paper, shown at its latest matched version,
    with every follow that matched it since the card was last opened
    (TrailMatch). A read card reopens only for a newer version; a dismissed
    one stays out until undismissed."""

    class Kind(models.TextChoices):
        NEW = "new", "new"
        REVISION = "revision", "revision"

    # Foreign keys without their own index: the unique (user, paper) index
    # serves the user side; papers and versions are deleted through the ORM
    # only (as harvest's own link tables), and trail rows go with the user.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    paper = models.ForeignKey("harvest.Paper", on_delete=models.CASCADE, related_name="+", db_index=False)
    latest_version = models.ForeignKey(
        "harvest.Version", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    latest_version_number = models.PositiveSmallIntegerField()
    latest_event_at = models.DateTimeField(help_text="when the latest matched version was stored here")
    kind = models.CharField(
        max_length=16, choices=Kind.choices, help_text="new: the card holds the paper's arrival; else a revision"
    )
    unread = models.BooleanField(default=True)
    read_at = models.DateTimeField(null=True, blank=True)
    dismissed = models.BooleanField(default=False)
    dismissed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "paper"], name="trailitem_user_paper_unique")]
        # Each trail view is one ordered range of one of these; the unread
        # one is also the total unread count's index-only scan.
        indexes = [
            models.Index(
                fields=["user", "-latest_event_at", "-id"],
                condition=models.Q(dismissed=False),
                name="trailitem_user_event_idx",
            ),
            models.Index(
                fields=["user", "-latest_event_at", "-id"],
                condition=models.Q(unread=True, dismissed=False),
                name="trailitem_user_unread_idx",
            ),
            models.Index(
                fields=["user", "kind", "-latest_event_at", "-id"],
                condition=models.Q(dismissed=False),
                name="trailitem_user_kind_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: paper {self.paper_id} v{self.latest_version_number}"


class TrailMatch(models.Model):
    """Why a card is in the trail: one follow's match, at the latest version it
    matched. `user`, `event_at` (the card's latest_event_at) and `unread` (the
    card is unread and not dismissed) are copies of the card's, kept in step by
    accounts.trail, so that a follow's view and its unread count are ranges of
    an index of this table alone."""

    item = models.ForeignKey(TrailItem, on_delete=models.CASCADE, related_name="matches", db_index=False)
    follow = models.ForeignKey(Follow, on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    version = models.ForeignKey(
        "harvest.Version", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    version_number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=TrailItem.Kind.choices)
    reason = models.JSONField(default=dict)
    event_at = models.DateTimeField()
    unread = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "follow"], name="trailmatch_item_follow_unique")]
        indexes = [
            models.Index(fields=["follow", "-event_at", "-item"], name="trailmatch_follow_event_idx"),
            models.Index(
                fields=["follow", "-event_at", "-item"],
                condition=models.Q(unread=True),
                name="trailmatch_follow_unread_idx",
            ),
            models.Index(fields=["user", "follow"], condition=models.Q(unread=True), name="trailmatch_user_unread_idx"),
        ]

    def __str__(self) -> str:
        return f"follow {self.follow_id} on item {self.item_id}"
