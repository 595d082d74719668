from django.contrib import admin

from accounts.shared.admin import ReadMostlyAdmin
from accounts.trail.models import ReaderMatch, TrailState


@admin.register(TrailState)
class TrailStateAdmin(ReadMostlyAdmin):
    list_display = ("id", "user", "paper", "read_version", "read_at", "dismissed", "excluded")
    list_filter = ("dismissed", "excluded")
    list_select_related = ("user", "paper")
    raw_id_fields = ("user", "paper")
    readonly_fields = ("read_version", "read_at", "dismissed_at")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(ReaderMatch)
class ReaderMatchAdmin(ReadMostlyAdmin):
    list_display = ("id", "user", "follow", "paper", "version_number", "kind", "event_at")
    list_select_related = ("user", "follow", "paper")
    raw_id_fields = ("user", "follow", "paper", "version")
    readonly_fields = ("version_number", "kind", "event_at", "reason", "created_at")

    def has_add_permission(self, request) -> bool:
        return False
