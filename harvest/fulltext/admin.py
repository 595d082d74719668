"""Full texts in the admin: the queue and its failures (with the exception
text), read-only, and an action to queue a failed version once more."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy, ngettext

from harvest.fulltext.models import FullText


@admin.register(FullText)
class FullTextAdmin(admin.ModelAdmin):
    list_display = ("version", "status", "origin", "failure", "attempts", "stored_bytes", "fetched_at")
    list_filter = ("status", "origin", "failure")
    raw_id_fields = ("version",)
    exclude = ("document",)
    readonly_fields = [f.name for f in FullText._meta.fields if f.name != "document"]
    show_full_result_count = False
    list_per_page = 50
    actions = ["queue_again"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[FullText]:
        return super().get_queryset(request).select_related("version__paper").defer("document")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description=gettext_lazy("Queue the selected failed versions once more"))
    def queue_again(self, request: HttpRequest, queryset: QuerySet[FullText]) -> None:
        count = queryset.filter(status=FullText.Status.FAILED).update(
            status=FullText.Status.WAITING, attempts=0, next_attempt_at=timezone.now()
        )
        self.message_user(
            request,
            ngettext("%(count)d version queued again.", "%(count)d versions queued again.", count) % {"count": count},
            messages.SUCCESS,
        )
