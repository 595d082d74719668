from django.contrib import admin

from accounts.follows.models import Exclusion, Follow
from accounts.shared.admin import ReadMostlyAdmin


@admin.register(Follow)
class FollowAdmin(ReadMostlyAdmin):
    list_display = ("id", "user", "kind", "name", "muted", "delivery", "created_at")
    list_filter = ("kind", "muted", "delivery")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("name",)
    readonly_fields = ("kind", "value", "compiled", "rejected_paper_ids", "created_at", "updated_at")


@admin.register(Exclusion)
class ExclusionAdmin(ReadMostlyAdmin):
    list_display = ("id", "user", "kind", "value", "created_at")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    readonly_fields = ("compiled", "created_at")
