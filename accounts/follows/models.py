from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy, pgettext_lazy


class Follow(models.Model):
    """Something a user follows: a category or archive, an author, a keyword
    query, a saved library view or a topic (described in words or by example
    papers, matched by embedding; accounts.follows.topics). `value` is what the user entered;
    `compiled` is derived from it at save time (normalised author variants,
    the parsed tsquery) so that matching a day of papers needs no parsing."""

    class Kind(models.TextChoices):
        CATEGORY = "category", "category"
        AUTHOR = "author", "author"
        QUERY = "query", "query"
        FILTERS = "filters", "filters"
        TOPIC = "topic", "topic"

    class Delivery(models.TextChoices):
        TRAIL = "trail", "trail"
        DAILY = "daily", "daily"
        WEEKLY = "weekly", "weekly"

    # A follow is one user's or one lab group's (accounts.groups), never both.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="follows",
        db_index=False,
        null=True,
        blank=True,
    )
    group = models.ForeignKey(
        "accounts.LabGroup", on_delete=models.CASCADE, related_name="follows", null=True, blank=True
    )
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
    # The newest definition match recorded before the follow began to match as
    # it is (set by accounts.trail when its matching changes): its trail shows
    # the later ones, and its back-fill what came before.
    matched_after = models.BigIntegerField(default=0, db_default=0, editable=False)

    class Meta:
        verbose_name = gettext_lazy("follow")
        verbose_name_plural = pgettext_lazy("model name", "follows")  # plain "follows" is the count word of "3 follows"
        # (user, id) serves the user's list and the matcher's stream in user order.
        indexes = [models.Index(fields=["user", "id"], name="follow_user_idx")]
        constraints = [
            models.CheckConstraint(
                condition=Q(user__isnull=False, group__isnull=True) | Q(user__isnull=True, group__isnull=False),
                name="follow_user_or_group",
            )
        ]

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
        verbose_name = gettext_lazy("exclusion")
        verbose_name_plural = gettext_lazy("exclusions")
        constraints = [models.UniqueConstraint(fields=["user", "kind", "value"], name="exclusion_unique")]

    def __str__(self) -> str:
        return f"not {self.kind} {self.value}"
