"""Admin for delivery: alerts sent or waiting (with their failures), and the
users' delivery settings, where a failing address shows. Imported by
accounts/admin.py."""

from __future__ import annotations

from django.contrib import admin

from accounts.alerts.models import AlertMail, AlertSettings


@admin.register(AlertMail)
class AlertMailAdmin(admin.ModelAdmin):
    show_full_result_count = False
    list_per_page = 50
    list_display = ("id", "user", "frequency", "period", "status", "item_count", "attempts", "sent_at", "error")
    list_filter = ("status", "frequency", "period")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("user__username", "address")
    date_hierarchy = "period"
    readonly_fields = [field.name for field in AlertMail._meta.fields]


class FailingFilter(admin.SimpleListFilter):
    title = "address"
    parameter_name = "failing"

    def lookups(self, request, model_admin):
        return [("yes", "failing"), ("no", "working")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(failing_address="")
        if self.value() == "no":
            return queryset.filter(failing_address="")
        return queryset


@admin.register(AlertSettings)
class AlertSettingsAdmin(admin.ModelAdmin):
    show_full_result_count = False
    list_per_page = 50
    list_display = ("user", "weekly_day", "unsubscribed_all", "failing_address", "failing_since", "failing_reason")
    list_filter = (FailingFilter, "unsubscribed_all", "weekly_day")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    search_fields = ("user__username", "failing_address")
    readonly_fields = ("feed_secret", "feed_secret_rotated_at", "failing_since", "failing_reason")
