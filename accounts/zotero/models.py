from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy


class ZoteroLink(models.Model):
    """A researcher's Zotero library (theirs or a group's) and the collection
    their research record is kept in step with. `api_key` is encrypted
    (accounts.shared.secrets) and never leaves the server; `library_version`
    is the library version the last pull saw (Zotero's `?since=`)."""

    class LibraryType(models.TextChoices):
        USER = "user", "user"
        GROUP = "group", "group"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="zotero_link")
    library_type = models.CharField(max_length=8, choices=LibraryType.choices, default=LibraryType.USER)
    library_id = models.PositiveBigIntegerField()
    api_key = models.TextField(help_text="encrypted; never shown")
    collections = models.JSONField(default=list, blank=True, help_text="[key, name] of the library's collections")
    collection_key = models.CharField(max_length=16, blank=True, default="")
    collection_name = models.CharField(max_length=255, blank=True, default="")
    library_version = models.PositiveBigIntegerField(default=0)
    backoff_until = models.DateTimeField(null=True, blank=True, help_text="Zotero asked us to wait until then")
    last_synced_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="", help_text="the last failure, in words")
    last_error_at = models.DateTimeField(null=True, blank=True)
    seed_result = models.TextField(blank=True, default="", help_text="what the last topic seeding did, in words")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("Zotero library")
        verbose_name_plural = gettext_lazy("Zotero libraries")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.library_type} {self.library_id}"

    @property
    def prefix(self) -> str:
        return f"/{self.library_type}s/{self.library_id}"


class ZoteroItem(models.Model):
    """A saved paper's item in the linked collection: its key and the item
    version our last write or read saw, and the record's `updated_at` that
    write carried, so that each change is written once."""

    link = models.ForeignKey(ZoteroLink, on_delete=models.CASCADE, related_name="items", db_index=False)
    paper = models.ForeignKey("harvest.Paper", on_delete=models.CASCADE, related_name="+", db_index=False)
    item_key = models.CharField(max_length=16)
    item_version = models.PositiveBigIntegerField(default=0)
    note_key = models.CharField(max_length=16, blank=True, default="")
    note_version = models.PositiveBigIntegerField(default=0)
    synced_updated_at = models.DateTimeField(null=True, blank=True, help_text="the record change last in step")

    class Meta:
        verbose_name = gettext_lazy("Zotero item")
        verbose_name_plural = gettext_lazy("Zotero items")
        constraints = [
            models.UniqueConstraint(fields=["link", "paper"], name="zoteroitem_link_paper_unique"),
            models.UniqueConstraint(fields=["link", "item_key"], name="zoteroitem_link_key_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.item_key} v{self.item_version}"


class ZoteroReport(models.Model):
    """Something the researcher is told on /me/: a conflict and which side
    won, or an item of the collection that is not an arXiv paper (kept in
    Zotero, not brought back). One per (link, item, kind)."""

    class Kind(models.TextChoices):
        CONFLICT_OURS = "conflict_ours", "conflict, PaperTrail's change kept"
        CONFLICT_THEIRS = "conflict_theirs", "conflict, Zotero's change kept"
        NOT_ARXIV = "not_arxiv", "not an arXiv paper"
        NOT_IN_LIBRARY = "not_in_library", "not in the library"

    link = models.ForeignKey(ZoteroLink, on_delete=models.CASCADE, related_name="reports", db_index=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    item_key = models.CharField(max_length=16)
    title = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("Zotero report")
        verbose_name_plural = gettext_lazy("Zotero reports")
        constraints = [models.UniqueConstraint(fields=["link", "item_key", "kind"], name="zoteroreport_unique")]
        indexes = [models.Index(fields=["link", "-created_at"], name="zoteroreport_link_idx")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.item_key}"
