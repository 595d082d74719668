"""The trail's storage. A reader's trail is composed when it is read
(accounts.trail.composition) from what is shared and what is theirs alone:

- DefinitionMatch: a follow definition's match of a new version, recorded
  once however many readers follow that definition;
- ReaderMatch: a match that is one reader's own (a new or edited follow's
  back-fill, a saved paper's revision);
- TrailState and TrailReadMark: what the reader did (read, dismissed), kept
  only for the cards they touched, and one "read up to here" mark;
- TrailProfile: the trail's side of a user, the order they read it in and
  the version of what they follow and marked.

No row is written per reader and paper when a harvest arrives, so a day
costs the definitions' matches, not readers by papers (docs/decisions.md,
"The trail composed when read")."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy


class CardKind(models.TextChoices):
    """What a card holds: a paper's arrival, or a later version of it."""

    NEW = "new", "new"
    REVISION = "revision", "revision"


class DefinitionMatch(models.Model):
    """One follow definition's match of a new version, recorded once however
    many users follow that definition (thousands follow cs.LG). `definition`
    is FollowDefinition.key of the follow's (kind, compiled); `is_primary` is
    false only for a category's cross-list. A follow shows the matches
    recorded after it began (Follow.matched_after), under its own rules."""

    definition = models.BigIntegerField()
    paper = models.ForeignKey(
        "harvest.Paper", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    version = models.ForeignKey(
        "harvest.Version", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    version_number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=CardKind.choices)
    event_at = models.DateTimeField()
    is_primary = models.BooleanField(default=True)
    reason = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("follow definition match")
        verbose_name_plural = gettext_lazy("follow definition matches")
        indexes = [
            # A reader's trail, newest first: one range per definition they follow.
            models.Index(fields=["definition", "-event_at"], name="definitionmatch_def_event_idx"),
            # The other matches of the papers on a page (a card's older versions, exclusions).
            models.Index(fields=["paper", "definition"], name="definitionmatch_paper_idx"),
        ]

    def __str__(self) -> str:
        return f"definition {self.definition} on paper {self.paper_id}"


class ReaderMatch(models.Model):
    """A match that is one reader's own: what a new or edited follow would
    have matched before it began (its back-fill), or a new version of a paper
    in the reader's research record (no follow: the record is the reason)."""

    # None: the back-fill of a lab group's follow, read by its members through the follow.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False, null=True, blank=True
    )
    follow = models.ForeignKey(
        "accounts.Follow", on_delete=models.CASCADE, null=True, blank=True, related_name="+", db_index=False
    )
    paper = models.ForeignKey(
        "harvest.Paper", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    version = models.ForeignKey(
        "harvest.Version", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    version_number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=CardKind.choices)
    event_at = models.DateTimeField()
    reason = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("reader's own match")
        verbose_name_plural = gettext_lazy("readers' own matches")
        indexes = [
            models.Index(fields=["user", "-event_at"], name="readermatch_user_event_idx"),
            models.Index(fields=["user", "paper"], name="readermatch_user_paper_idx"),
            models.Index(fields=["follow"], name="readermatch_follow_idx"),
            models.Index(fields=["created_at"], name="readermatch_created_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: paper {self.paper_id} v{self.version_number}"


class TrailState(models.Model):
    """What a reader did with one paper's card: the newest version they read
    (0: none), a dismissal ("not interested": out with its revisions until
    undone; what was matched while it lasted is not taken when undone), or an
    exclusion made after it arrived. Cards nobody touched have no row."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    paper = models.ForeignKey(
        "harvest.Paper", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    read_version = models.PositiveSmallIntegerField(default=0)
    read_at = models.DateTimeField(null=True, blank=True)
    dismissed = models.BooleanField(default=False)
    dismissed_at = models.DateTimeField(null=True, blank=True)
    undismissed_at = models.DateTimeField(null=True, blank=True, help_text="when the last dismissal was undone")
    excluded = models.BooleanField(default=False, help_text="taken out by an exclusion made after it arrived")

    class Meta:
        verbose_name = gettext_lazy("trail card state")
        verbose_name_plural = gettext_lazy("trail card states")
        constraints = [models.UniqueConstraint(fields=["user", "paper"], name="trailstate_user_paper_unique")]
        indexes = [models.Index(fields=["user"], condition=models.Q(dismissed=True), name="trailstate_dismissed_idx")]

    def __str__(self) -> str:
        return f"{self.user_id}: paper {self.paper_id}"


class TrailReadMark(models.Model):
    """The reader's "read up to here": every card whose place in the trail
    (event time, then paper) is at or before (`up_to`, `up_to_paper`), as the
    card stood at `marked_at`, is read; a version that came later reopens it."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+")
    up_to = models.DateTimeField()
    up_to_paper = models.BigIntegerField()
    marked_at = models.DateTimeField()

    class Meta:
        verbose_name = gettext_lazy("trail read mark")
        verbose_name_plural = gettext_lazy("trail read marks")

    def __str__(self) -> str:
        return f"{self.user_id}: up to {self.up_to:%Y-%m-%d %H:%M}"


class TrailProfile(models.Model):
    """The trail's side of a user (the User keeps identity only): the order
    their trail opens in, and `version`, counted up by every change of what
    they follow or marked (accounts.trail.readers) in the change's
    transaction, so that a stored unread count names the version it was made
    from. Made with the user (accounts.trail.receivers)."""

    class Order(models.TextChoices):
        FOR_YOU = "for_you", gettext_lazy("For you: each day's cards by how well they fit your record")
        NEWEST = "newest", gettext_lazy("Newest first")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="trail_profile"
    )
    order = models.CharField(max_length=8, choices=Order.choices, default=Order.FOR_YOU, db_default=Order.FOR_YOU)
    version = models.BigIntegerField(default=0, db_default=0, editable=False)

    class Meta:
        verbose_name = gettext_lazy("trail profile")
        verbose_name_plural = gettext_lazy("trail profiles")

    def __str__(self) -> str:
        return f"trail of {self.user_id}"


class GroupTrailState(models.Model):
    """TrailState's twin on a lab group's trail: what one member did with one
    of the group's cards (each member reads the group's trail on their own).
    Kept apart from TrailState so that a group's cards never count as the
    member's own (their recommender's negatives, their exclusions)."""

    group = models.ForeignKey("accounts.LabGroup", on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    paper = models.ForeignKey(
        "harvest.Paper", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    read_version = models.PositiveSmallIntegerField(default=0)
    read_at = models.DateTimeField(null=True, blank=True)
    dismissed = models.BooleanField(default=False)
    dismissed_at = models.DateTimeField(null=True, blank=True)
    undismissed_at = models.DateTimeField(null=True, blank=True)
    excluded = models.BooleanField(default=False)  # never set: a group has no exclusions; TrailState's shape

    class Meta:
        verbose_name = gettext_lazy("group trail card state")
        verbose_name_plural = gettext_lazy("group trail card states")
        constraints = [
            models.UniqueConstraint(fields=["group", "user", "paper"], name="grouptrailstate_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.group_id}: paper {self.paper_id}"


class GroupTrailReadMark(models.Model):
    """TrailReadMark's twin: one member's "read up to here" on a group's trail."""

    group = models.ForeignKey("accounts.LabGroup", on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    up_to = models.DateTimeField()
    up_to_paper = models.BigIntegerField()
    marked_at = models.DateTimeField()

    class Meta:
        verbose_name = gettext_lazy("group trail read mark")
        verbose_name_plural = gettext_lazy("group trail read marks")
        constraints = [models.UniqueConstraint(fields=["group", "user"], name="grouptrailreadmark_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.group_id}: up to {self.up_to:%Y-%m-%d %H:%M}"
