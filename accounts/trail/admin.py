from django.contrib import admin

from accounts.follows.admin import ReadMostlyAdmin
from accounts.trail.models import TrailItem


@admin.register(TrailItem)
class TrailItemAdmin(ReadMostlyAdmin):
    list_display = ("id", "user", "paper", "latest_version_number", "kind", "unread", "dismissed", "latest_event_at")
    list_select_related = ("user", "paper")
    raw_id_fields = ("user", "paper", "latest_version")
    readonly_fields = ("latest_version_number", "latest_event_at", "kind", "created_at")

    def has_add_permission(self, request) -> bool:
        return False
