from django.contrib import admin

from accounts.shared.admin import ReadMostlyAdmin
from accounts.zotero.models import ZoteroLink, ZoteroReport


@admin.register(ZoteroLink)
class ZoteroLinkAdmin(ReadMostlyAdmin):
    """Read only, and never the key: a link is the researcher's, changed on /me/."""

    list_display = ("id", "user", "library_type", "library_id", "collection_name", "last_synced_at", "last_error")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    exclude = ("api_key",)
    readonly_fields = (
        "user",
        "library_type",
        "library_id",
        "collection_key",
        "collection_name",
        "library_version",
        "backoff_until",
        "last_synced_at",
        "last_error",
        "last_error_at",
        "seed_result",
        "created_at",
    )

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ZoteroReport)
class ZoteroReportAdmin(ReadMostlyAdmin):
    list_display = ("id", "link", "kind", "item_key", "title", "created_at")
    list_filter = ("kind",)
    raw_id_fields = ("link",)
    readonly_fields = ("link", "kind", "item_key", "title", "created_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
