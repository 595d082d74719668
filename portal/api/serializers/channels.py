"""The shapes of /api/v1/me/channels/: a channel as its owner sees it (its
secret never, only the host messages go to) and what creating one takes."""

from __future__ import annotations

from rest_framework import serializers

from accounts.channels.models import Channel


class ChannelSerializer(serializers.ModelSerializer):
    id = serializers.IntegerField(help_text="The channel's id.")
    kind = serializers.ChoiceField(
        Channel.Kind.values, help_text="The provider: " + ", ".join(Channel.Kind.values) + "."
    )
    name = serializers.CharField(help_text="Your name for it.")
    target_host = serializers.CharField(
        help_text="The host messages go to; the webhook or token itself is never shown."
    )
    follow = serializers.IntegerField(
        source="follow_id", allow_null=True, help_text="The follow whose papers it gets; null: the whole trail."
    )
    rhythm = serializers.ChoiceField(
        Channel.Rhythm.values, help_text="announcement (after each), daily or weekly (08:00 of your day, Mondays)."
    )
    top_n = serializers.IntegerField(help_text="Papers in a message.")
    created_at = serializers.DateTimeField(help_text="When it was added.")
    paused = serializers.BooleanField(help_text="Paused (by you, or after repeated failures): nothing is sent.")
    paused_at = serializers.DateTimeField(allow_null=True, help_text="Since when it is paused.")
    paused_reason = serializers.CharField(help_text="Why it is paused: the last error, or your pause.")
    failures = serializers.IntegerField(help_text="Failed attempts in a row.")
    tested_at = serializers.DateTimeField(allow_null=True, help_text="When the last test message was tried.")
    test_ok = serializers.BooleanField(allow_null=True, help_text="Whether it arrived; null: not tried yet.")
    test_error = serializers.CharField(help_text="Why the last test message failed (host and status).")

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
    kind = serializers.CharField(help_text=f"One of {', '.join(Channel.Kind.values)}.")
    name = serializers.CharField(required=False, allow_blank=True, default="", help_text="Your name for it.")
    url = serializers.CharField(
        required=False, allow_blank=True, default="", write_only=True, help_text="the webhook address (not Telegram)"
    )
    token = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        write_only=True,
        help_text="Telegram: the bot's token; ntfy (optional): an access token, tk_…, for a protected topic",
    )
    chat_id = serializers.CharField(
        required=False, allow_blank=True, default="", write_only=True, help_text="Telegram: the chat's id"
    )
    signing_secret = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        write_only=True,
        help_text="Feishu, Lark, DingTalk (optional): the bot's signing secret (签名校验 / 加签); "
        "each message is then signed with it",
    )
    follow = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="One of your follows; null: the whole trail.",
    )
    rhythm = serializers.CharField(
        required=False, default=Channel.Rhythm.ANNOUNCEMENT, help_text="announcement (default), daily or weekly."
    )
    top_n = serializers.IntegerField(required=False, default=5, help_text="Papers in a message, 1 to 10 (default 5).")


class ChannelUpdateSerializer(serializers.Serializer):
    paused = serializers.BooleanField(help_text="true pauses the channel, false resumes it.")
