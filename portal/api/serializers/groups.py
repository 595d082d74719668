"""Lab groups as the API shows them (portal/api/groups.py)."""

from __future__ import annotations

from rest_framework import serializers

from accounts.groups.models import Membership
from accounts.groups.types import INVITE_DAYS, MAX_NAME


class GroupSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="group.pk", help_text="The group's id.")
    name = serializers.CharField(source="group.name", help_text="The group's name.")
    role = serializers.ChoiceField(choices=Membership.Role.values, help_text="Your role in it: owner or member.")
    created_at = serializers.DateTimeField(source="group.created_at", help_text="When it was made (UTC).")
    joined_at = serializers.DateTimeField(help_text="When you joined (UTC).")


class GroupListSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many groups you are in.")
    results = GroupSerializer(many=True, help_text="Your groups, by name.")


class GroupWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=MAX_NAME, help_text="The group's name.")


class MemberSerializer(serializers.Serializer):
    user_id = serializers.IntegerField(help_text="The member's user id.")
    username = serializers.CharField(source="user.username", help_text="The member's user name.")
    role = serializers.ChoiceField(choices=Membership.Role.values, help_text="owner or member.")
    joined_at = serializers.DateTimeField(help_text="When they joined (UTC).")


class MemberListSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many members.")
    results = MemberSerializer(many=True, help_text="The owner first, then by when they joined.")


class InviteSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The invite's id (to revoke it).")
    url = serializers.CharField(help_text="The invitation link: whoever signs in and opens it joins.")
    token = serializers.CharField(help_text="The link's last part, for POST /api/v1/groups/join/.")
    created_at = serializers.DateTimeField(help_text="When it was made (UTC).")
    expires_at = serializers.DateTimeField(help_text="When it stops working (UTC).")
    uses = serializers.IntegerField(help_text="How many joined through it.")


class InviteListSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Invites that still hold.")
    results = InviteSerializer(many=True, help_text="Newest first.")


class InviteWriteSerializer(serializers.Serializer):
    days = serializers.IntegerField(
        required=False, default=INVITE_DAYS, help_text=f"Days the link holds (default {INVITE_DAYS}, at most 30)."
    )


class JoinSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=2000, help_text="The invitation link's token.")
