"""One row per version whose full text is wanted: why it is wanted, where
its fetch stands, and the parsed text once read (compressed JSON of a
`harvest.fulltext.document.Document`)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy


class FullText(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", gettext_lazy("waiting")
        FETCHING = "fetching", gettext_lazy("being read")
        DONE = "done", gettext_lazy("read")
        FAILED = "failed", gettext_lazy("failed")

    class Origin(models.TextChoices):
        HTML = "html", "HTML"
        PDF = "pdf", "PDF"

    class Reason(models.TextChoices):
        SAVED = "saved", gettext_lazy("saved by a researcher")
        FOR_YOU = "for_you", gettext_lazy("top of a researcher's For you")
        OPENED = "opened", gettext_lazy("its reading was opened")
        ASKED = "asked", gettext_lazy("asked about")
        POPULAR = "popular", gettext_lazy("among the day's most popular")

    version = models.OneToOneField("harvest.Version", on_delete=models.CASCADE, related_name="full_text")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.WAITING)
    reasons = models.JSONField(default=list, help_text="why it is wanted (Reason values), first first")
    requested_at = models.DateTimeField(default=timezone.now)
    # Lower is sooner: someone waiting (asked, opened) before a daily selection.
    priority = models.PositiveSmallIntegerField(default=5)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    origin = models.CharField(max_length=8, choices=Origin.choices, blank=True)
    licence = models.TextField(blank=True, help_text="as arXiv states it for the paper")
    document = models.BinaryField(null=True, blank=True, help_text="zlib-compressed JSON")
    stored_bytes = models.PositiveIntegerField(default=0)
    text_chars = models.PositiveIntegerField(default=0)
    etag = models.CharField(max_length=255, blank=True)
    last_modified = models.CharField(max_length=64, blank=True)
    fetched_at = models.DateTimeField(null=True, blank=True)
    # What stopped the last attempt: a code the pages put in words, and the
    # exception text that only staff see.
    failure = models.CharField(max_length=32, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        verbose_name = gettext_lazy("full text")
        verbose_name_plural = gettext_lazy("full texts")
        indexes = [models.Index(fields=["status", "priority", "next_attempt_at"], name="fulltext_queue_idx")]

    def __str__(self) -> str:
        return f"full text of version {self.version_id} ({self.status})"


class Passage(models.Model):
    """One passage of a version's full text (harvest/fulltext/chunks.py) with
    its embedding by the search model (float16, as `StoredVector`): what
    "ask" retrieves and what its section citations are checked against."""

    version = models.ForeignKey("harvest.Version", on_delete=models.CASCADE, related_name="passages")
    position = models.PositiveIntegerField()
    section = models.CharField(max_length=64, help_text='the label a citation names: "3.1", "B.2"')
    anchor = models.CharField(max_length=128, blank=True, help_text="the section's id in arXiv's HTML")
    page = models.PositiveIntegerField(null=True, blank=True, help_text="a PDF's page")
    heading = models.CharField(max_length=300, blank=True)
    text = models.TextField()
    model = models.CharField(max_length=128)
    vector = models.BinaryField()
    text_hash = models.CharField(max_length=16)
    embedded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("full-text passage")
        verbose_name_plural = gettext_lazy("full-text passages")
        constraints = [models.UniqueConstraint(fields=["version", "position"], name="passage_version_position")]

    def __str__(self) -> str:
        return f"passage {self.position} (§{self.section}) of version {self.version_id}"
