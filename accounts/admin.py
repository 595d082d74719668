from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, Exclusion, Follow, Record, Tag, TrailItem, User
from harvest.admin import LargeTableAdmin

admin.site.register(User, UserAdmin)


class _ReadMostly(admin.ModelAdmin):
    # The trail tables are large: no full counts under the change lists.
    show_full_result_count = False
    list_per_page = 50


@admin.register(Follow)
class FollowAdmin(_ReadMostly):
    list_display = ("id", "user", "kind", "name", "muted", "delivery", "created_at")
    list_filter = ("kind", "muted", "delivery")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("name",)
    readonly_fields = ("kind", "value", "compiled", "rejected_paper_ids", "created_at", "updated_at")


@admin.register(Exclusion)
class ExclusionAdmin(_ReadMostly):
    list_display = ("id", "user", "kind", "value", "created_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    readonly_fields = ("compiled", "created_at")


@admin.register(TrailItem)
class TrailItemAdmin(_ReadMostly):
    list_display = ("id", "user", "paper", "latest_version_number", "kind", "unread", "dismissed", "latest_event_at")
    list_select_related = ("user", "paper")
    raw_id_fields = ("user", "paper", "latest_version")
    readonly_fields = ("latest_version_number", "latest_event_at", "kind", "created_at")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens by name and public prefix; the secret's hash is never shown. An
    admin revokes a token by setting its revocation time; new ones are made
    on /me/ or with `manage.py create_api_token`, which show the secret once."""

    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("name", "prefix", "user__username")
    fields = ("user", "name", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("user", "name", "prefix", "created_at", "last_used_at")

    def has_add_permission(self, request) -> bool:
        return False


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
