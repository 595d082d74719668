from django.contrib import admin

from accounts.groups.models import GroupInvite, LabGroup, Membership
from accounts.shared.admin import ReadMostlyAdmin


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(LabGroup)
class LabGroupAdmin(ReadMostlyAdmin):
    list_display = ("id", "name", "created_at")
    search_fields = ("name",)
    inlines = [MembershipInline]


@admin.register(GroupInvite)
class GroupInviteAdmin(ReadMostlyAdmin):
    """Invites by group and dates; the nonce (the link's secret part) is never shown."""

    list_display = ("id", "group", "created_by", "created_at", "expires_at", "revoked_at", "uses")
    list_select_related = ("group", "created_by")
    raw_id_fields = ("group", "created_by")
    exclude = ("nonce",)
    readonly_fields = ("created_at", "uses")

    def has_add_permission(self, request) -> bool:
        return False
