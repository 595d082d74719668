from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy

from accounts.follows.models import Follow


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
        verbose_name = gettext_lazy("trail card")
        verbose_name_plural = gettext_lazy("trail cards")
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
    # A copy of the card's user, with no constraint: a match goes with its
    # card (item), and a constraint here would make deleting an account check
    # this unindexed column, a scan of every user's matches.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
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
        verbose_name = gettext_lazy("trail match")
        verbose_name_plural = gettext_lazy("trail matches")
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


class DefinitionMatch(models.Model):
    """One follow definition's match of a new version, recorded once however
    many users follow that definition (thousands follow cs.LG); each user's
    cards are made from these when their trail is next read
    (accounts.trail_delivery). `definition` is accounts.definitions'
    FollowDefinition.key of the follow's (kind, compiled); `is_primary` is false
    only for a category's cross-list."""

    definition = models.BigIntegerField()
    paper = models.ForeignKey(
        "harvest.Paper", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    version = models.ForeignKey(
        "harvest.Version", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    version_number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=TrailItem.Kind.choices)
    event_at = models.DateTimeField()
    is_primary = models.BooleanField(default=True)
    reason = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("follow definition match")
        verbose_name_plural = gettext_lazy("follow definition matches")
        indexes = [
            models.Index(fields=["definition", "id"], name="definitionmatch_def_idx"),
            models.Index(fields=["created_at"], name="definitionmatch_created_idx"),
        ]

    def __str__(self) -> str:
        return f"definition {self.definition} on paper {self.paper_id}"
