"""The shapes of /api/v1/me/channels/: a channel as its owner sees it (its
secret never, only the host messages go to) and what creating one takes."""

from __future__ import annotations

from rest_framework import serializers

from accounts.channels.models import Channel


class ChannelSerializer(serializers.ModelSerializer):
    follow = serializers.IntegerField(source="follow_id", allow_null=True, help_text="empty: the whole trail")
    paused = serializers.BooleanField()

    class Meta:
        model = Channel
        fields = [
            "id",
            "kind",
            "name",
            "target_host",
            "follow",
            "rhythm",
            "top_n",
            "created_at",
            "paused",
            "paused_at",
            "paused_reason",
            "failures",
            "tested_at",
            "test_ok",
            "test_error",
        ]
        read_only_fields = fields


class ChannelWriteSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text=f"one of {', '.join(Channel.Kind.values)}")
    name = serializers.CharField(required=False, allow_blank=True, default="")
    url = serializers.CharField(
        required=False, allow_blank=True, default="", write_only=True, help_text="the webhook address (not Telegram)"
    )
    token = serializers.CharField(
        required=False, allow_blank=True, default="", write_only=True, help_text="Telegram: the bot's token"
    )
    chat_id = serializers.CharField(
        required=False, allow_blank=True, default="", write_only=True, help_text="Telegram: the chat's id"
    )
    follow = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    rhythm = serializers.CharField(required=False, default=Channel.Rhythm.ANNOUNCEMENT)
    top_n = serializers.IntegerField(required=False, default=5)


class ChannelUpdateSerializer(serializers.Serializer):
    paused = serializers.BooleanField()
