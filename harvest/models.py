"""The library: papers, their versions, authors and categories, and the sources
that fill it with a record of every run.

Stored times are UTC. A paper's `authors` and `categories` lists are kept on the
row in display order (primary category first) so a page shows a paper without
joins; `Authorship` and `PaperCategory` hold the same facts in indexed form for
filters and follows.
"""

from __future__ import annotations

import re

from django.db import models
from django.db.models import Value
from django.db.models.functions import Upper
from django.utils import timezone
from django.utils.translation import gettext_lazy

from harvest.importance import CODE_URL_CHARS, VENUE_CHARS, popularity_expression


class Paper(models.Model):
    arxiv_id = models.CharField(max_length=64, unique=True, help_text="arXiv identifier without version")
    title = models.TextField()
    abstract = models.TextField(blank=True)
    authors = models.JSONField(default=list, help_text="author names in order")
    # Beside the names, not in them: an author row is a person, whatever
    # their affiliation on one paper (Authorship.affiliation, derived).
    affiliations = models.JSONField(
        default=list,
        db_default=Value([], output_field=models.JSONField()),
        blank=True,
        help_text='each author\'s affiliation in the order of `authors` ("" where none), or [] when none is known',
    )
    categories = models.JSONField(default=list, help_text="category codes, primary first")
    primary_category = models.CharField(max_length=32, blank=True)
    comments = models.TextField(blank=True)
    journal_ref = models.TextField(blank=True)
    doi = models.TextField(blank=True, help_text="one or more DOIs separated by spaces")
    # Text, not a bounded column: real records carry a 740-character submitter.
    license = models.TextField(blank=True)
    submitter = models.TextField(blank=True)
    published = models.DateTimeField(null=True, blank=True, help_text="v1 date")
    updated = models.DateTimeField(null=True, blank=True, help_text="latest version date")
    included_at = models.DateTimeField(default=timezone.now, help_text="when this site first stored it")
    ai_related = models.BooleanField(default=False)
    latest_version = models.PositiveSmallIntegerField(default=1)
    version_count = models.PositiveSmallIntegerField(default=1)
    search_pending = models.BooleanField(
        default=True,
        db_default=True,
        help_text="title or abstract not yet in the full-text index (harvest.search_index fills it)",
    )
    # Importance signals (harvest/importance.py): read from the latest
    # version's text at ingest, and the community's upvotes kept beside them
    # so the score is a column of the row, computed by the database.
    code_url = models.CharField(
        max_length=CODE_URL_CHARS,
        blank=True,
        default="",
        db_default="",
        help_text="first GitHub, GitLab or Hugging Face URL of the abstract or comments",
    )
    venue = models.CharField(
        max_length=VENUE_CHARS,
        blank=True,
        default="",
        db_default="",
        help_text='venue acceptance the comments state, e.g. "NeurIPS 2026 oral"',
    )
    upvotes = models.PositiveIntegerField(
        default=0, db_default=0, help_text="most upvotes of the paper's community picks (harvest.services)"
    )
    popularity = models.GeneratedField(
        expression=popularity_expression(),
        output_field=models.FloatField(),
        db_persist=True,
        help_text="the popular sort's score (docs/decisions.md, Popular papers)",
    )

    class Meta:
        verbose_name = gettext_lazy("paper")
        verbose_name_plural = gettext_lazy("papers")
        # The orders by `updated` and `published` (NULLS LAST) have their
        # indexes in migration 0003; every index here is paid on each insert.
        indexes = [
            models.Index(fields=["-included_at", "-id"], name="paper_included_idx"),
            models.Index(fields=["id"], condition=models.Q(search_pending=True), name="paper_search_pending_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.arxiv_id}: {self.title[:80]}"

    @property
    def has_revisions(self) -> bool:
        return self.version_count > 1

    @property
    def author_affiliations(self) -> list[str]:
        """One affiliation per author, in order ("" where none is known)."""
        affiliations = self.affiliations or []
        if len(affiliations) != len(self.authors):
            return [""] * len(self.authors)
        return list(affiliations)

    @property
    def credited_authors(self) -> list[tuple[str, str]]:
        """(name, affiliation) of each author, in order."""
        return list(zip(self.authors, self.author_affiliations, strict=True))

    @property
    def abs_url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv_id}"

    @property
    def pdf_url(self) -> str:
        return f"https://arxiv.org/pdf/{self.arxiv_id}"


class Version(models.Model):
    """One version (v1, v2, …) of a paper, with what that version said where a
    source gives it: arXivRaw carries the text of the latest version only, so
    earlier versions keep the text that was stored when they were latest."""

    # No index of its own: the unique (paper, number) index serves lookups by paper.
    # No database foreign key either: checking it at commit was a tenth of an
    # ingest's database time (docs/decisions.md). harvest.stores writes
    # versions only for papers it wrote or found under its write lock, in the
    # same transaction; deletes cascade through the ORM (as Authorship's).
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="versions", db_index=False, db_constraint=False
    )
    number = models.PositiveSmallIntegerField()
    submitted = models.DateTimeField(null=True, blank=True)
    size = models.CharField(max_length=32, blank=True, help_text='as arXiv gives it, e.g. "294kb"')
    source_type = models.CharField(max_length=8, blank=True)
    title = models.TextField(blank=True)
    abstract = models.TextField(blank=True)
    authors = models.TextField(blank=True)
    comments = models.TextField(blank=True)
    discovered_at = models.DateTimeField(default=timezone.now, help_text="when this site first stored it")
    # Written by harvest.announcements only: the day arXiv announced this
    # version, shown where the submission date is not known yet.
    announced = models.DateField(null=True, blank=True, help_text="day arXiv's announcement feed listed it")

    class Meta:
        verbose_name = gettext_lazy("version")
        verbose_name_plural = gettext_lazy("versions")
        constraints = [
            models.UniqueConstraint(fields=["paper", "number"], name="version_unique_per_paper"),
            models.CheckConstraint(condition=models.Q(number__gte=1), name="version_number_positive"),
        ]
        # Covering: a follow's preview and back-fill read the window's
        # (paper, number, time) from the index alone (docs/decisions.md).
        indexes = [
            models.Index(fields=["discovered_at"], include=["paper", "number"], name="version_discovered_cover_idx")
        ]
        ordering = ["paper_id", "number"]

    def __str__(self) -> str:
        return f"{self.paper.arxiv_id}v{self.number}"

    @property
    def label(self) -> str:
        return f"v{self.number}"


class Author(models.Model):
    name = models.CharField(max_length=512)

    class Meta:
        verbose_name = gettext_lazy("author")
        verbose_name_plural = gettext_lazy("authors")
        # One index serves both lookups of a name and keeps names unique:
        # exact (the upsert: UPPER(name) and name) and case-insensitive (the
        # author filter: its UPPER(name) prefix). Each index an author has is
        # paid on every new name a harvest brings.
        constraints = [models.UniqueConstraint(Upper("name"), "name", name="author_name_unique")]

    def __str__(self) -> str:
        return self.name


class Authorship(models.Model):
    # Served by the unique (paper, position) and the (author, paper) indexes.
    # Authorship and PaperCategory rows are derived from the paper's own
    # `authors` and `categories` and only harvest.stores writes them, in the
    # transaction that writes the paper; they carry no database foreign key
    # because checking one at commit costs more than writing the row (seven
    # rows a paper). Deletes still cascade through the ORM.
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="authorships", db_index=False, db_constraint=False
    )
    author = models.ForeignKey(
        Author, on_delete=models.CASCADE, related_name="authorships", db_index=False, db_constraint=False
    )
    position = models.PositiveSmallIntegerField()
    # As the paper's source gave it ("; " between several), "" where it gave none.
    affiliation = models.TextField(blank=True, default="", db_default="")

    class Meta:
        verbose_name = gettext_lazy("authorship")
        verbose_name_plural = gettext_lazy("authorships")
        constraints = [
            models.UniqueConstraint(fields=["paper", "position"], name="authorship_unique_position"),
        ]
        indexes = [models.Index(fields=["author", "paper"], name="authorship_author_idx")]

    def __str__(self) -> str:
        return f"{self.author_id} on {self.paper_id} at {self.position}"


class PaperCategory(models.Model):
    # Served by the unique (paper, category) index; no database foreign key
    # (see Authorship).
    paper = models.ForeignKey(
        Paper, on_delete=models.CASCADE, related_name="category_links", db_index=False, db_constraint=False
    )
    category = models.CharField(max_length=32)
    is_primary = models.BooleanField(default=False)

    class Meta:
        verbose_name = gettext_lazy("paper category")
        verbose_name_plural = gettext_lazy("paper categories")
        constraints = [
            models.UniqueConstraint(fields=["paper", "category"], name="papercategory_unique"),
        ]
        indexes = [models.Index(fields=["category", "paper"], name="papercategory_category_idx")]

    def __str__(self) -> str:
        return f"{self.category} on {self.paper_id}"


class Source(models.Model):
    """A place papers come from. Its checkpoint says where the next run starts;
    its lease says which process is running it now (harvest/locks.py)."""

    slug = models.SlugField(max_length=32, unique=True)
    name = models.CharField(max_length=100)
    enabled = models.BooleanField(default=True)
    checkpoint = models.JSONField(default=dict, blank=True)
    lease_owner = models.CharField(max_length=255, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("source")
        verbose_name_plural = gettext_lazy("sources")

    def __str__(self) -> str:
        return self.name


class HarvestRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", "running"
        OK = "ok", "ok"
        EMPTY = "empty", "empty"
        FAILED = "failed", "failed"

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="runs")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    seen = models.PositiveIntegerField(default=0)
    new_papers = models.PositiveIntegerField(default=0)
    new_versions = models.PositiveIntegerField(default=0)
    updated = models.PositiveIntegerField(
        default=0, help_text="known papers whose metadata changed without a new version"
    )
    unchanged = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    pages = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    checkpoint = models.JSONField(
        default=dict, blank=True, help_text="request window and the resumption point after the last stored page"
    )

    class Meta:
        verbose_name = gettext_lazy("harvest run")
        verbose_name_plural = gettext_lazy("harvest runs")
        indexes = [
            models.Index(fields=["source", "-started_at"], name="harvestrun_source_started_idx"),
            models.Index(fields=["-finished_at"], name="harvestrun_finished_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source.slug} run {self.pk} ({self.status})"

    @property
    def problem(self) -> str:
        """What stopped a failed check, in a word a page can say in the
        reader's language (the exception text is for operators): `network`
        (no connection), `http` (an error status, `problem_status`), `reply`
        (too large or too slow), `unreadable` (not the expected format) or
        `internal`; "" when nothing did."""
        error = self.error
        if self.status != self.Status.FAILED and not error:
            return ""
        for prefix, problem in _PROBLEMS:
            if error.startswith(prefix):
                return problem
        return "reply" if error.startswith("reply from ") else "internal"

    @property
    def retry_in(self) -> float | None:
        """For a failure that may pass (no connection, a slow or large reply,
        HTTP 429 or 5xx): the wait the source asked for (Retry-After), 0 when
        it asked none; None for a failure that retrying will not mend."""
        problem, status = self.problem, self.problem_status
        if problem in ("network", "reply") or (problem == "http" and (status == 429 or (status or 0) >= 500)):
            asked = re.search(r"Retry-After (\d+) s", self.error)
            return float(asked.group(1)) if asked else 0.0
        return None

    @property
    def problem_status(self) -> int | None:
        found = re.match(r"HTTP (\d{3})\b", self.error)
        return int(found.group(1)) if found else None


# The messages harvest.sources raise (SourceError) start so.
_PROBLEMS = (
    ("network error", "network"),
    ("HTTP ", "http"),
    ("unparsable", "unreadable"),
    ("not an RSS", "unreadable"),
    ("arXiv API error", "unreadable"),
    ("Hugging Face Daily Papers reply", "unreadable"),
)


class CommunityPick(models.Model):
    """A community signal about a paper, such as a Hugging Face Daily Papers
    feature: when it was featured and how many upvotes it had when last seen."""

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="community_picks")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="picks")
    featured_on = models.DateField()
    upvotes = models.PositiveIntegerField(default=0)
    url = models.URLField(blank=True)
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("community pick")
        verbose_name_plural = gettext_lazy("community picks")
        constraints = [models.UniqueConstraint(fields=["paper", "source"], name="communitypick_unique")]
        indexes = [models.Index(fields=["-first_seen_at"], name="communitypick_seen_idx")]

    def __str__(self) -> str:
        return f"{self.paper.arxiv_id} on {self.source.slug} ({self.upvotes} upvotes)"


class Announcement(models.Model):
    """One day's listing of arXiv's announcement feed for a set of categories,
    as last fetched; its items say what the library should then hold."""

    feed = models.CharField(max_length=255, help_text='the categories asked for, joined by "+"')
    announced_on = models.DateField()
    fetched_at = models.DateTimeField(default=timezone.now)
    left_for_oai = models.JSONField(
        default=list, blank=True, help_text="replaced papers whose earlier versions the API lookup did not give"
    )

    class Meta:
        verbose_name = gettext_lazy("arXiv announcement")
        verbose_name_plural = gettext_lazy("arXiv announcements")
        constraints = [models.UniqueConstraint(fields=["feed", "announced_on"], name="announcement_unique_day")]
        indexes = [models.Index(fields=["-announced_on"], name="announcement_day_idx")]

    def __str__(self) -> str:
        return f"{self.feed} {self.announced_on}"


class AnnouncementItem(models.Model):
    """One paper version an announcement listed. A child table (not a JSON
    list) so the completeness report joins items to papers in one query."""

    class Type(models.TextChoices):
        NEW = "new", "new"
        CROSS = "cross", "cross"
        REPLACE = "replace", "replace"
        REPLACE_CROSS = "replace-cross", "replace-cross"

    announcement = models.ForeignKey(Announcement, on_delete=models.CASCADE, related_name="items")
    arxiv_id = models.CharField(max_length=64)
    version = models.PositiveSmallIntegerField()
    announce_type = models.CharField(max_length=16, choices=Type.choices)

    class Meta:
        verbose_name = gettext_lazy("announcement item")
        verbose_name_plural = gettext_lazy("announcement items")
        constraints = [
            models.UniqueConstraint(fields=["announcement", "arxiv_id"], name="announcementitem_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.arxiv_id}v{self.version} ({self.announce_type})"


class StoredVector(models.Model):
    """A vector by the configured embedding model, one per paper: `vector`
    holds float16 values (little-endian, the model's dimension),
    L2-normalised; `model` names the model that made it, so a change of model
    re-embeds; `text_hash` fingerprints the embedded text (the same text keeps
    its vector)."""

    model = models.CharField(max_length=128)
    vector = models.BinaryField()
    text_hash = models.CharField(max_length=16)
    embedded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True


class PaperEmbedding(StoredVector):
    """A paper's embedding (harvest.embeddings, its title and the abstract's
    lead): the source of truth the vector index is built from."""

    paper = models.OneToOneField(
        Paper, on_delete=models.CASCADE, primary_key=True, related_name="embedding", db_constraint=False
    )

    class Meta:
        verbose_name = gettext_lazy("paper embedding")
        verbose_name_plural = gettext_lazy("paper embeddings")
        # The index's incremental reads: what was embedded after its watermark.
        indexes = [models.Index(fields=["model", "embedded_at", "paper"], name="embedding_model_time_idx")]

    def __str__(self) -> str:
        return f"{self.paper_id} by {self.model}"


class ReadingEmbedding(StoredVector):
    """The embedding of a paper's Chinese guided reading (its takeaway, problem
    and method, written by the digests app), by the same model and in the same
    form as PaperEmbedding. The semantic search ranks the papers by these
    beside their own vectors, so a Chinese query meets Chinese text where a
    reading exists (docs/search.md)."""

    paper = models.OneToOneField(
        Paper, on_delete=models.CASCADE, primary_key=True, related_name="reading_embedding", db_constraint=False
    )

    class Meta:
        verbose_name = gettext_lazy("guided reading embedding")
        verbose_name_plural = gettext_lazy("guided reading embeddings")
        indexes = [models.Index(fields=["model", "embedded_at", "paper"], name="reading_embedding_time_idx")]

    def __str__(self) -> str:
        return f"reading of {self.paper_id} by {self.model}"


# The full-text domain keeps its model beside its code; importing it here
# registers it with the harvest app (and its migrations).
from harvest.fulltext.models import FullText, Passage  # noqa: E402, F401
