"""The library in the Django admin: papers with their versions, authors and
community picks, authors, sources (enable, disable, run now, checkpoint) and
their runs.

Every change list stays fast on a library of millions of papers: no full-table
count (the paginator estimates an unfiltered table and counts a filtered one
only up to a cap), searches that use the library's indexes, foreign keys as raw
ids, and the rows a list shows fetched with their relations in one query.
"""

from __future__ import annotations

from datetime import date

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.paginator import Paginator
from django.db import connection, transaction
from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce, Upper
from django.http import HttpRequest
from django.utils.functional import cached_property

from harvest.filters import full_text_search
from harvest.models import (
    Announcement,
    Author,
    Authorship,
    CommunityPick,
    HarvestRun,
    Paper,
    PaperCategory,
    Source,
    Version,
)
from harvest.source_records import MalformedRecord, split_arxiv_id
from harvest.tasks import run_source

# A filtered list is counted up to this many rows: the pages past it are still
# reachable through filters, and no count reads millions of rows.
COUNT_CAP = 10_000


class BoundedCountPaginator(Paginator):
    """Counts a filtered list up to COUNT_CAP rows and takes PostgreSQL's own
    estimate for a whole table, so that no change list counts the library."""

    @cached_property
    def count(self) -> int:
        query = self.object_list.query
        if not query.where and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass", [query.model._meta.db_table]
                )
                row = cursor.fetchone()
            if row and row[0] >= 0:
                return int(row[0])
        return self.object_list.order_by()[: COUNT_CAP + 1].count()


class LargeTableAdmin(admin.ModelAdmin):
    paginator = BoundedCountPaginator
    show_full_result_count = False
    list_per_page = 50


class HarvestOwnedInline(admin.TabularInline):
    """Rows the harvest writes and would overwrite: shown, never edited here."""

    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class VersionInline(HarvestOwnedInline):
    model = Version
    fields = ("number", "submitted", "announced", "size", "source_type", "title", "discovered_at")
    readonly_fields = fields
    ordering = ("number",)


class AuthorshipInline(HarvestOwnedInline):
    model = Authorship
    fields = ("position", "author", "affiliation")
    readonly_fields = fields
    ordering = ("position",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Authorship]:
        return super().get_queryset(request).select_related("author")


class CommunityPickInline(HarvestOwnedInline):
    model = CommunityPick
    fields = ("source", "featured_on", "upvotes", "url", "last_seen_at")
    readonly_fields = fields


class PrimaryCategoryFilter(admin.SimpleListFilter):
    """The AI-related categories as choices (a list of every category in the
    library would be a scan of it); any code works as ?primary=code."""

    title = "primary category"
    parameter_name = "primary"

    def lookups(self, request: HttpRequest, model_admin):
        return [(code, code) for code in sorted(settings.PAPERTRAIL_AI_CATEGORIES)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Paper]) -> QuerySet[Paper]:
        if not self.value():
            return queryset
        primary = PaperCategory.objects.filter(paper=OuterRef("pk"), category=self.value(), is_primary=True)
        return queryset.filter(Exists(primary))


class HasRevisionsFilter(admin.SimpleListFilter):
    title = "has revisions"
    parameter_name = "revised"

    def lookups(self, request: HttpRequest, model_admin):
        return [("1", "yes"), ("0", "no")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Paper]) -> QuerySet[Paper]:
        if self.value() == "1":
            return queryset.filter(version_count__gt=1)
        if self.value() == "0":
            return queryset.filter(version_count__lte=1)
        return queryset


def search_papers(queryset: QuerySet[Paper], term: str) -> QuerySet[Paper]:
    """An arXiv id (with or without version, or an arXiv URL) finds that paper;
    anything else is a full-text search of titles and abstracts, as the library's."""
    text = term.strip()
    if not text:
        return queryset
    try:
        arxiv_id, _version = split_arxiv_id(text)
    except MalformedRecord:
        return full_text_search(queryset, text)
    return queryset.filter(arxiv_id=arxiv_id)


@admin.register(Paper)
class PaperAdmin(LargeTableAdmin):
    list_display = ("arxiv_id", "short_title", "primary_category", "latest_version", "ai_related", "updated")
    list_filter = ("ai_related", PrimaryCategoryFilter, HasRevisionsFilter)
    search_fields = ("arxiv_id",)  # shows the search box; get_search_results does the search
    search_help_text = "An arXiv id (2611.13545, hep-th/9901001) or words of the title or abstract."
    ordering = ("-id",)
    inlines = (VersionInline, AuthorshipInline, CommunityPickInline)
    readonly_fields = [field.name for field in Paper._meta.fields if field.name != "id"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # papers come from the sources

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Paper], search_term: str):
        return search_papers(queryset, search_term), False

    @admin.display(description="title")
    def short_title(self, paper: Paper) -> str:
        return paper.title if len(paper.title) <= 90 else paper.title[:89] + "…"


@admin.register(Version)
class VersionAdmin(LargeTableAdmin):
    list_display = ("paper", "number", "submitted", "announced", "size", "discovered_at")
    list_select_related = ("paper",)
    raw_id_fields = ("paper",)
    search_fields = ("paper__arxiv_id",)
    search_help_text = "An arXiv id."
    ordering = ("-id",)
    readonly_fields = [field.name for field in Version._meta.fields if field.name != "id"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Version], search_term: str):
        papers = search_papers(Paper.objects.all(), search_term) if search_term.strip() else None
        if papers is None:
            return queryset, False
        return queryset.filter(paper__in=papers.values("pk")[:COUNT_CAP]), False


@admin.register(Author)
class AuthorAdmin(LargeTableAdmin):
    list_display = ("name", "paper_count")
    search_fields = ("name",)  # shows the search box; get_search_results does the search
    search_help_text = "The start of a name, as the library stores it (Lovelace, Ada or Ada Lovelace)."
    # By name, the unique (UPPER(name), name) index's order: a page and a name
    # search are then one short walk of that index.
    ordering = (Upper("name"), "name")
    readonly_fields = ("name",)

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Author], search_term: str):
        start = search_term.strip().upper()
        if not start:
            return queryset, False
        # A range on the indexed UPPER(name) finds the prefix in any collation;
        # the LIKE keeps exactly the names that start with it.
        after = start[:-1] + chr(ord(start[-1]) + 1)
        upper = Upper("name")
        found = queryset.alias(upper_name=upper).filter(
            upper_name__gte=start, upper_name__lt=after, upper_name__startswith=start
        )
        return found, False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Author]:
        # A correlated count, evaluated for the rows of the page only.
        papers = (
            Authorship.objects.filter(author=OuterRef("pk"))
            .order_by()
            .values("author")
            .annotate(n=Count("*"))
            .values("n")
        )
        return super().get_queryset(request).annotate(papers=Coalesce(Subquery(papers), 0))

    @admin.display(description="papers", ordering="papers")
    def paper_count(self, author: Author) -> int:
        return author.papers


class SourceForm(forms.ModelForm):
    class Meta:
        model = Source
        fields = ("slug", "name", "enabled", "checkpoint")

    def clean_checkpoint(self) -> dict:
        """An object whose dates (`from`, `until`) are ISO dates: the next run
        starts from it, so a typo must not reach the harvester."""
        checkpoint = self.cleaned_data["checkpoint"]
        if not isinstance(checkpoint, dict):
            raise forms.ValidationError('The checkpoint is a JSON object, e.g. {"from": "2026-11-12"}.')
        for key in ("from", "until"):
            value = checkpoint.get(key)
            if value is None:
                continue
            try:
                date.fromisoformat(str(value))
            except ValueError:
                raise forms.ValidationError(f"{key}: {value!r} is not a date YYYY-MM-DD.") from None
        return checkpoint


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    form = SourceForm
    list_display = ("slug", "name", "enabled", "last_status", "last_started_at")
    list_filter = ("enabled",)
    fields = ("slug", "name", "enabled", "checkpoint", "lease_owner", "lease_expires_at")
    readonly_fields = ("lease_owner", "lease_expires_at")
    actions = ("enable", "disable", "run_now")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Source]:
        latest = HarvestRun.objects.filter(source=OuterRef("pk")).order_by("-started_at", "-id")
        return (
            super()
            .get_queryset(request)
            .annotate(
                last_status=Subquery(latest.values("status")[:1]),
                last_started=Subquery(latest.values("started_at")[:1]),
            )
        )

    @admin.display(description="last run")
    def last_status(self, source: Source) -> str:
        return source.last_status or "never run"

    @admin.display(description="last started")
    def last_started_at(self, source: Source):
        return source.last_started

    @admin.action(description="Enable the selected sources")
    def enable(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        self.message_user(request, f"{queryset.update(enabled=True)} sources enabled.")

    @admin.action(description="Disable the selected sources")
    def disable(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        self.message_user(request, f"{queryset.update(enabled=False)} sources disabled.")

    @admin.action(description="Run a check of the selected sources now")
    def run_now(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        slugs = list(queryset.filter(enabled=True).values_list("slug", flat=True))
        for slug in slugs:
            transaction.on_commit(lambda slug=slug: run_source.delay(slug))
        if slugs:
            self.message_user(request, f"Queued a check of {', '.join(slugs)}.")
        else:
            self.message_user(request, "No enabled source selected: nothing queued.", level=messages.WARNING)


@admin.register(HarvestRun)
class HarvestRunAdmin(LargeTableAdmin):
    list_display = (
        "id",
        "source",
        "status",
        "started_at",
        "duration",
        "seen",
        "new_papers",
        "new_versions",
        "short_error",
    )
    list_filter = ("status", "source")
    list_select_related = ("source",)
    ordering = ("-started_at", "-id")
    readonly_fields = [field.name for field in HarvestRun._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="duration")
    def duration(self, run: HarvestRun) -> str:
        if not run.finished_at:
            return "running" if run.status == HarvestRun.Status.RUNNING else "—"
        return f"{(run.finished_at - run.started_at).total_seconds():.0f} s"

    @admin.display(description="error")
    def short_error(self, run: HarvestRun) -> str:
        return run.error[:120]


@admin.register(CommunityPick)
class CommunityPickAdmin(LargeTableAdmin):
    list_display = ("paper", "source", "featured_on", "upvotes", "last_seen_at")
    list_filter = ("source",)
    list_select_related = ("paper", "source")
    raw_id_fields = ("paper",)
    search_fields = ("paper__arxiv_id",)
    ordering = ("-featured_on", "-id")


@admin.register(Announcement)
class AnnouncementAdmin(admin.ModelAdmin):
    list_display = ("announced_on", "feed", "fetched_at")
    ordering = ("-announced_on",)
    readonly_fields = ("feed", "announced_on", "fetched_at", "left_for_oai")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


# The full-text domain registers its own admin beside its model.
from harvest.fulltext import admin as fulltext_admin  # noqa: E402, F401
