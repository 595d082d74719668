"""Channels in the admin: the secret is neither shown nor editable."""

from django.contrib import admin

from accounts.channels.models import Channel, ChannelSend


@admin.register(Channel)
class ChannelAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "user", "target_host", "rhythm", "paused_at", "failures", "test_ok")
    list_filter = ("kind", "rhythm")
    list_select_related = ("user",)
    exclude = ("secret_encrypted", "bucket_tokens", "bucket_at")
    readonly_fields = ("target_host", "tested_at", "test_ok", "test_error", "failures", "paused_reason")
    raw_id_fields = ("user", "follow")


@admin.register(ChannelSend)
class ChannelSendAdmin(admin.ModelAdmin):
    list_display = ("channel", "period", "status", "attempts", "sent_at", "next_attempt_at")
    list_filter = ("status",)
    list_select_related = ("channel",)
    raw_id_fields = ("channel",)
    readonly_fields = ("token", "paper_ids", "error")
