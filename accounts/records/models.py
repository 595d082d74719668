from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy


class Tag(models.Model):
    """One of a user's own tags. Names are unique per user regardless of case,
    so "RL" and "rl" are one tag; the first spelling is kept."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tags", db_index=False)
    name = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("tag")
        verbose_name_plural = gettext_lazy("tags")
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint("user", Lower("name"), name="tag_user_name_unique")]

    def __str__(self) -> str:
        return self.name


class Record(models.Model):
    """A paper a user saved, with where they are with it, their tags and a
    private note. `last_read_version` is the version number the user last
    opened; a paper whose latest version is newer was revised since."""

    class State(models.TextChoices):
        TO_READ = "to_read", "to read"
        READING = "reading", "reading"
        READ = "read", "read"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="records", db_index=False)
    paper = models.ForeignKey("harvest.Paper", on_delete=models.CASCADE, related_name="+", db_index=False)
    saved_at = models.DateTimeField(default=timezone.now)
    state = models.CharField(max_length=16, choices=State.choices, default=State.TO_READ)
    to_read_at = models.DateTimeField(null=True, blank=True, help_text="when the state was last set to to read")
    reading_at = models.DateTimeField(null=True, blank=True, help_text="when the state was last set to reading")
    read_at = models.DateTimeField(null=True, blank=True, help_text="when the state was last set to read")
    note = models.TextField(blank=True, help_text="private Markdown")
    note_updated_at = models.DateTimeField(null=True, blank=True)
    last_read_version = models.PositiveSmallIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    tags = models.ManyToManyField(Tag, through="RecordTag", related_name="records", blank=True)
    # Copies of what /records/ filters and sorts by, refreshed from the paper
    # when the record is made and when a new version of the paper is stored
    # (accounts.records.records_refresh_papers): reading 5,000 scattered
    # paper rows for one filter took 120-400 ms at a million papers.
    paper_categories = models.TextField(blank=True, default="", help_text="the paper's codes, ' cs.LG cs.AI '")
    paper_title_key = models.CharField(max_length=200, blank=True, default="", help_text="lowercased title, to sort")
    paper_updated = models.DateTimeField(null=True, blank=True)
    paper_latest_version = models.PositiveSmallIntegerField(default=1)

    class Meta:
        verbose_name = gettext_lazy("saved paper")
        verbose_name_plural = gettext_lazy("saved papers")
        constraints = [models.UniqueConstraint(fields=["user", "paper"], name="record_user_paper_unique")]
        indexes = [
            models.Index(fields=["user", "-saved_at", "-id"], name="record_user_saved_idx"),
            models.Index(fields=["user", "state", "-saved_at", "-id"], name="record_user_state_idx"),
            # A new version of a paper finds the records that follow it implicitly.
            models.Index(fields=["paper"], name="record_paper_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: paper {self.paper_id} ({self.state})"


class RecordTag(models.Model):
    """A tag on a record; `user` is a copy of the record's so that a tag's
    records and the per-tag counts are ranges of one index."""

    record = models.ForeignKey(Record, on_delete=models.CASCADE, related_name="+", db_index=False)
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)

    class Meta:
        verbose_name = gettext_lazy("saved paper's tag")
        verbose_name_plural = gettext_lazy("saved papers' tags")
        constraints = [models.UniqueConstraint(fields=["record", "tag"], name="recordtag_unique")]
        indexes = [
            models.Index(fields=["tag", "record"], name="recordtag_tag_idx"),
            models.Index(fields=["user", "tag"], name="recordtag_user_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.tag_id} on {self.record_id}"


class RecordSearch(models.Model):
    """PostgreSQL: a copy of the record's paper's search vector, refreshed with
    the record's other copies. A table of its own so that the records' rows
    stay narrow for every other filter (inline, the vectors made a user's
    5,000 rows 3,000 pages), and so a search reads only these."""

    record = models.OneToOneField(Record, on_delete=models.CASCADE, primary_key=True, related_name="search")
    vector = SearchVectorField(null=True)

    class Meta:
        verbose_name = gettext_lazy("saved paper's search vector")
        verbose_name_plural = gettext_lazy("saved papers' search vectors")

    def __str__(self) -> str:
        return f"search of record {self.record_id}"
