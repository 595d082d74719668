from django.contrib import admin

from accounts.records.models import Record, Tag
from harvest.admin import LargeTableAdmin


@admin.register(Record)
class RecordAdmin(LargeTableAdmin):
    """Records are their owners' (the note is private): shown for support,
    changed through the site. The bounded paginator keeps a million rows cheap."""

    list_display = ("id", "user", "paper", "state", "saved_at", "last_read_version", "updated_at")
    list_filter = ("state",)
    list_select_related = ("user", "paper")
    raw_id_fields = ("user", "paper")
    search_fields = ("=user__username", "=paper__arxiv_id")
    readonly_fields = ("saved_at", "to_read_at", "reading_at", "read_at", "note_updated_at", "updated_at")
    ordering = ("-id",)

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(Tag)
class TagAdmin(LargeTableAdmin):
    list_display = ("id", "user", "name", "created_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("=user__username", "name")
    ordering = ("-id",)
