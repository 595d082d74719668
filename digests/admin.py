"""Admin for guided readings: status and cost at a glance, an explicit
regenerate action, and the pause switch."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from digests.budget import llm_resume
from digests.models import Ask, DailySpend, GuidedReading, LLMState, SummaryBatch
from digests.quality import report_lines
from digests.selectors import INVALID_TWICE_PREFIX
from digests.services import readings_regenerate


class InvalidReplyFilter(admin.SimpleListFilter):
    """Readings whose provider gave no valid structured reply in two tries:
    failed, nothing stored, the provider and model named in the error."""

    title = "structured reply"
    parameter_name = "reply"

    def lookups(self, request: HttpRequest, model_admin) -> list[tuple[str, str]]:
        return [("invalid", "no valid reply in two tries")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[GuidedReading]) -> QuerySet[GuidedReading]:
        if self.value() == "invalid":
            return queryset.filter(status=GuidedReading.Status.FAILED, error__startswith=INVALID_TWICE_PREFIX)
        return queryset


@admin.register(GuidedReading)
class GuidedReadingAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "version",
        "prompt_version",
        "status",
        "source",
        "numbers_removed",
        "language_removed",
        "stale",
        "provider",
        "model",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "currency",
        "attempts",
        "written_at",
    )
    list_filter = ("status", "source", "upgrade", "stale", InvalidReplyFilter, "provider", "prompt_version", "model")
    search_fields = ("version__paper__arxiv_id", "error")
    list_select_related = ("version__paper",)
    raw_id_fields = ("version", "batch")
    date_hierarchy = "created_at"
    actions = ("regenerate",)
    readonly_fields = (
        "version",
        "prompt_version",
        "status",
        "provider",
        "model",
        "content",
        "source",
        "citations",
        "numbers_removed",
        "language_removed",
        "upgrade",
        "stale",
        "reread",
        "text_hash",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "currency",
        "created_at",
        "written_at",
        "claimed_at",
        "error",
        "attempts",
        "batch",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Regenerate (current prompt version: redo explicitly; older: write under the current)")
    def regenerate(self, request: HttpRequest, queryset: QuerySet[GuidedReading]) -> None:
        running = queryset.filter(status=GuidedReading.Status.RUNNING).count()
        pending = readings_regenerate(reading_ids=list(queryset.values_list("id", flat=True)))
        self.message_user(request, f"{len(pending)} readings set to pending and queued.", messages.SUCCESS)
        if running:
            self.message_user(request, f"{running} running readings were left alone.", messages.WARNING)


@admin.register(SummaryBatch)
class SummaryBatchAdmin(admin.ModelAdmin):
    list_display = ("batch_id", "provider", "status", "request_count", "reserved_usd", "created_at", "ended_at")
    list_filter = ("status", "provider")
    readonly_fields = [f.name for f in SummaryBatch._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(LLMState)
class LLMStateAdmin(admin.ModelAdmin):
    list_display = ("id", "paused", "reason", "paused_at", "budget_exhausted_on", "check_summary")
    readonly_fields = ("check_report",)
    actions = ("resume",)

    @admin.display(description="last check_llm reports")
    def check_summary(self, state: LLMState) -> str:
        return "; ".join(
            f"{key}: {report['valid']}/{report['requests']} valid" for key, report in sorted(state.checks.items())
        )

    @admin.display(description="check_llm reports (python manage.py check_llm)")
    def check_report(self, state: LLMState) -> str:
        """Each report's lines as the command prints them (shown escaped, one line each)."""
        return "\n\n".join("\n".join(report_lines(report)) for report in state.checks.values())

    @admin.action(description="Resume summarising (after fixing the key or the spending limit)")
    def resume(self, request: HttpRequest, queryset: QuerySet[LLMState]) -> None:
        llm_resume()
        self.message_user(request, "Summarising resumed.", messages.SUCCESS)


@admin.register(DailySpend)
class DailySpendAdmin(admin.ModelAdmin):
    list_display = ("day", "provider", "spent_usd", "calls")
    list_filter = ("provider",)
    readonly_fields = ("day", "provider", "spent_usd", "calls")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Ask)
class AskAdmin(admin.ModelAdmin):
    """Questions to the library, for cost and abuse: who asked, when, what it cost.
    Read-only: an answer is the asker's, changed by nobody."""

    list_display = (
        "id",
        "user",
        "language",
        "status",
        "cached",
        "provider",
        "model",
        "dropped_citations",
        "cost_usd",
        "currency",
        "created_at",
    )
    list_filter = ("status", "cached", "language", "provider")
    raw_id_fields = ("user", "thread", "paper")
    list_select_related = ("user",)
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
