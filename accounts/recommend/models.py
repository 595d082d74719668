from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy


class RecommenderProfile(models.Model):
    """A user's recommender: whether they asked for a model per tag, and when
    their model was last trained (accounts.recommend.training)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="recommender")
    per_tag = models.BooleanField(default=False, help_text="also train a model for each tag with enough saves")
    description = models.TextField(
        blank=True, default="", help_text="the researcher's interests in their own words, embedded as a query"
    )
    trained_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("recommender profile")
        verbose_name_plural = gettext_lazy("recommender profiles")

    def __str__(self) -> str:
        return f"recommender of {self.user_id}"


class RecommenderModel(models.Model):
    """One trained model: the user's whole record (tag empty) or one tag's
    records. `weights` is the text model's sparse weight vector; `embedding`
    the model over paper embeddings (empty when none could be trained);
    `neighbours` the text vectors of the most recent saves, which explanations
    compare recommendations with."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    tag = models.ForeignKey("accounts.Tag", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    trained_at = models.DateTimeField(default=timezone.now)
    positives = models.PositiveIntegerField(default=0)
    negatives = models.PositiveIntegerField(default=0)
    background = models.PositiveIntegerField(default=0)
    weights = models.BinaryField()
    embedding = models.BinaryField(default=b"", blank=True)
    neighbours = models.BinaryField()

    class Meta:
        verbose_name = gettext_lazy("recommender model")
        verbose_name_plural = gettext_lazy("recommender models")
        constraints = [
            models.UniqueConstraint(fields=["user"], condition=models.Q(tag__isnull=True), name="recmodel_user_unique"),
            models.UniqueConstraint(fields=["user", "tag"], name="recmodel_user_tag_unique"),
        ]

    def __str__(self) -> str:
        return f"model of {self.user_id} (tag {self.tag_id})"


class Recommendation(models.Model):
    """A scored paper for a user (and a tag's model, when `tag` is set), with
    why: `reasons` holds the closest saved papers and the weightiest terms.
    `event_at` is when the paper's latest version arrived here (the window);
    `seen_at` when the user opened the paper's page."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    paper = models.ForeignKey("harvest.Paper", on_delete=models.CASCADE, related_name="+", db_index=False)
    tag = models.ForeignKey("accounts.Tag", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    score = models.FloatField()
    reasons = models.JSONField(default=dict)
    event_at = models.DateTimeField()
    computed_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("recommendation")
        verbose_name_plural = gettext_lazy("recommendations")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "paper"], condition=models.Q(tag__isnull=True), name="recommendation_user_paper_unique"
            ),
            models.UniqueConstraint(fields=["user", "tag", "paper"], name="recommendation_user_tag_paper_unique"),
        ]
        # The tab is the best scores of one user's unseen rows.
        indexes = [
            models.Index(
                fields=["user", "tag", "-score"],
                condition=models.Q(seen_at__isnull=True),
                name="recommendation_top_idx",
            ),
            models.Index(fields=["paper"], name="recommendation_paper_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: paper {self.paper_id} ({self.score:.3f})"


class NotInterested(models.Model):
    """A recommendation the user said no to: an explicit negative for the next
    training, and never recommended again."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    paper = models.ForeignKey("harvest.Paper", on_delete=models.CASCADE, related_name="+", db_index=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("“not interested” mark")
        verbose_name_plural = gettext_lazy("“not interested” marks")
        constraints = [models.UniqueConstraint(fields=["user", "paper"], name="notinterested_user_paper_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} not interested in {self.paper_id}"


class ScoringRun(models.Model):
    """One scoring of a set of papers (a harvest page's, or the window's after
    a user's retraining): the papers, in the order every sheet of the run
    keeps its scores in (little-endian int32)."""

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    paper_ids = models.BinaryField()

    class Meta:
        verbose_name = gettext_lazy("scoring run")
        verbose_name_plural = gettext_lazy("scoring runs")

    def __str__(self) -> str:
        return f"scoring run {self.pk} ({self.created_at:%Y-%m-%d %H:%M})"


class ScoreSheet(models.Model):
    """One user's scores of one run's papers (little-endian float16, in the
    run's order): what orders their trail "for you" and their alerts. One row
    per user and run instead of one per user and paper: a harvest scores
    thousands of papers for every active researcher."""

    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="sheets")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    scores = models.BinaryField()
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("score sheet")
        verbose_name_plural = gettext_lazy("score sheets")
        constraints = [models.UniqueConstraint(fields=["user", "run"], name="scoresheet_user_run_unique")]
        indexes = [models.Index(fields=["user", "-computed_at"], name="scoresheet_user_computed_idx")]

    def __str__(self) -> str:
        return f"scores of {self.user_id} in run {self.run_id}"


class Rating(models.Model):
    """A thumbs up (+1) or down (-1) on a paper: explicit training data for
    the user's recommender (a liked paper counts like a save, a disliked one
    as a negative). One per user and paper; clearing it deletes the row.
    `source` says where it was given: a card's thumbs, or the picks page (a
    paper picked from a day's papers: a thumbs up that seeds the ranking on
    its own, accounts.recommend.picks)."""

    class Value(models.IntegerChoices):
        UP = 1, gettext_lazy("thumbs up")
        DOWN = -1, gettext_lazy("thumbs down")

    class Source(models.TextChoices):
        THUMB = "thumb", gettext_lazy("thumbs up / down")
        PICK = "pick", gettext_lazy("picked from a day's papers")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    paper = models.ForeignKey("harvest.Paper", on_delete=models.CASCADE, related_name="+", db_index=False)
    value = models.SmallIntegerField(choices=Value.choices)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.THUMB, db_default=Source.THUMB)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("rating")
        verbose_name_plural = gettext_lazy("ratings")
        constraints = [
            models.UniqueConstraint(fields=["user", "paper"], name="rating_user_paper_unique"),
            models.CheckConstraint(condition=models.Q(value__in=[1, -1]), name="rating_value_up_or_down"),
        ]
        # Deleting a paper finds its ratings.
        indexes = [models.Index(fields=["paper"], name="rating_paper_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} rated {self.paper_id} {self.value:+d}"
