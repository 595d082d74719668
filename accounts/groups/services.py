"""Writes of lab groups: made by a researcher (its owner), joined through a
signed invitation link, left by a member, managed (rename, members, invites,
deletion) by its owner. The group's follows are written through follows'
services (`follow_create(group_id=...)`); what a member did on its trail is
the trail's (`group_trail_forget` when they go). The caller (portal) has
checked who may do what through `selectors.membership_get`."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.follows.models import Follow
from accounts.follows.services import follow_delete
from accounts.groups import signals
from accounts.groups.models import GroupInvite, LabGroup, Membership
from accounts.groups.selectors import invite_find, invite_link_token
from accounts.models import User
from accounts.trail.services import group_trail_forget

MAX_NAME = 200
MAX_GROUPS = 20  # groups a researcher owns: a lab or two, their projects
INVITE_DAYS = 7  # how long an invitation link holds unless revoked
MAX_INVITE_DAYS = 30


class InviteInvalid(Exception):
    """The link is not one of ours, or has expired, or was revoked."""


def _clean_name(name: str) -> str:
    name = " ".join(str(name or "").split())
    if not name:
        raise ValidationError({"name": _("Give the group a name.")})
    if len(name) > MAX_NAME:
        raise ValidationError({"name": _("A group's name has at most %(limit)d characters.") % {"limit": MAX_NAME}})
    return name


@transaction.atomic
def group_create(*, owner: User, name: str, now: datetime | None = None) -> LabGroup:
    now = now or timezone.now()
    clean = _clean_name(name)
    # The owner's row keeps two concurrent creations under the limit.
    User.objects.select_for_update().filter(pk=owner.pk).first()
    if Membership.objects.filter(user=owner, role=Membership.Role.OWNER).count() >= MAX_GROUPS:
        raise ValidationError({"name": _("At most %(limit)d groups of your own.") % {"limit": MAX_GROUPS}})
    group = LabGroup.objects.create(name=clean, created_at=now)
    Membership.objects.create(group=group, user=owner, role=Membership.Role.OWNER, joined_at=now)
    return group


def group_rename(*, group: LabGroup, name: str) -> LabGroup:
    group.name = _clean_name(name)
    group.save(update_fields=["name"])
    return group


@transaction.atomic
def group_delete(*, group: LabGroup) -> None:
    """The group goes with its follows (each through follows' own delete, so
    the trail forgets their matches), its members' marks on its trail and its
    invites."""
    signals.group_deleting.send(sender=LabGroup, group_id=group.pk)
    for follow in Follow.objects.filter(group=group).order_by("id"):
        follow_delete(follow=follow)
    for user_id in Membership.objects.filter(group=group).values_list("user_id", flat=True):
        group_trail_forget(user_id=user_id, group_id=group.pk)
    group.delete()


# --- invitations ------------------------------------------------------------------
@transaction.atomic
def invite_create(
    *, group: LabGroup, by: User, days: int = INVITE_DAYS, now: datetime | None = None
) -> tuple[GroupInvite, str]:
    """A new invitation link: the invite and its token (the link's last part)."""
    if not 1 <= days <= MAX_INVITE_DAYS:
        raise ValidationError({"days": _("From 1 to %(limit)d days.") % {"limit": MAX_INVITE_DAYS}})
    now = now or timezone.now()
    invite = GroupInvite.objects.create(
        group=group,
        created_by=by,
        nonce=secrets.token_urlsafe(16),
        created_at=now,
        expires_at=now + timedelta(days=days),
    )
    return invite, invite_link_token(invite)


def invite_revoke(*, group: LabGroup, invite_id: int, now: datetime | None = None) -> bool:
    """The link no longer holds (a link already used leaves its members in)."""
    done = GroupInvite.objects.filter(group=group, pk=invite_id, revoked_at__isnull=True).update(
        revoked_at=now or timezone.now()
    )
    return bool(done)


@transaction.atomic
def invite_accept(*, user: User, token: str, now: datetime | None = None) -> Membership:
    """The signed-in user joins the group the link invites to (already a
    member: nothing changes). Raises InviteInvalid for a link that does not hold."""
    now = now or timezone.now()
    invite = invite_find(token=token, now=now)
    if invite is None:
        raise InviteInvalid(token)
    membership, created = Membership.objects.get_or_create(
        group_id=invite.group_id, user=user, defaults={"role": Membership.Role.MEMBER, "joined_at": now}
    )
    if created:
        GroupInvite.objects.filter(pk=invite.pk).update(uses=F("uses") + 1)
    membership.group = invite.group
    return membership


# --- members ----------------------------------------------------------------------
@transaction.atomic
def member_remove(*, group: LabGroup, user_id: int) -> bool:
    """The owner takes a member out (not themselves): their access ends at
    once, and their marks on the group's trail go."""
    deleted, _ = Membership.objects.filter(group=group, user_id=user_id, role=Membership.Role.MEMBER).delete()
    if deleted:
        group_trail_forget(user_id=user_id, group_id=group.pk)
        signals.member_left.send(sender=LabGroup, group_id=group.pk, user_id=user_id)
    return bool(deleted)


@transaction.atomic
def group_leave(*, membership: Membership) -> None:
    """A member leaves. The owner cannot: they hand the group over or delete it."""
    if membership.role == Membership.Role.OWNER:
        raise ValidationError({"group": _("The owner cannot leave; hand the group over or delete it.")})
    member_remove(group=membership.group, user_id=membership.user_id)


@transaction.atomic
def ownership_transfer(*, group: LabGroup, to_user_id: int) -> bool:
    """Another member becomes the owner; the owner becomes a member."""
    target = Membership.objects.select_for_update().filter(group=group, user_id=to_user_id).first()
    if target is None or target.role == Membership.Role.OWNER:
        return False
    Membership.objects.filter(group=group, role=Membership.Role.OWNER).update(role=Membership.Role.MEMBER)
    target.role = Membership.Role.OWNER
    target.save(update_fields=["role"])
    return True
