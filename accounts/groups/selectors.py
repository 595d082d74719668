"""Reads of lab groups. Every read of a group goes through the reader's
membership (`membership_get`): a group someone is not in is None, the same
answer as an id that names nothing."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.groups.models import GroupInvite, LabGroup, Membership
from accounts.groups.tokens import invite_token, invite_token_parts
from accounts.models import User

__all__ = [
    "group_list",
    "invite_find",
    "invite_link_token",
    "invite_list",
    "member_list",
    "membership_get",
]


def group_list(*, user: User) -> list[Membership]:
    """The user's memberships (their groups, with their role), by group name."""
    return list(Membership.objects.filter(user=user).select_related("group").order_by("group__name", "group_id"))


def membership_get(*, user: User, group_id: int) -> Membership | None:
    """The user's membership of this group (its group attached); None when
    they are not a member, or there is no such group."""
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(user=user, group_id=group_id).select_related("group").first()


def member_list(*, group: LabGroup) -> list[Membership]:
    """The group's members, the owner first, then by when they joined."""
    memberships = Membership.objects.filter(group=group).select_related("user")
    return sorted(memberships, key=lambda m: (m.role != Membership.Role.OWNER, m.joined_at, m.pk))


def invite_list(*, group: LabGroup, now: datetime | None = None) -> list[GroupInvite]:
    """The group's invites that still hold, newest first (the owner's page)."""
    now = now or timezone.now()
    return list(
        GroupInvite.objects.filter(group=group, revoked_at__isnull=True, expires_at__gt=now).order_by("-created_at")
    )


def invite_link_token(invite: GroupInvite) -> str:
    """The token of the invite's link (shown to the group's owner only)."""
    return invite_token(group_id=invite.group_id, invite_id=invite.pk, nonce=invite.nonce)


def invite_find(*, token: str, now: datetime | None = None) -> GroupInvite | None:
    """The invite this token names, if it still holds (well signed, not
    expired, not revoked), its group attached; None otherwise."""
    parts = invite_token_parts(token)
    if parts is None:
        return None
    group_id, invite_id, nonce = parts
    invite = GroupInvite.objects.filter(pk=invite_id, group_id=group_id, nonce=nonce).select_related("group").first()
    if invite is None or not invite.usable(now or timezone.now()):
        return None
    return invite
