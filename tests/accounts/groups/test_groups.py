"""Lab groups: invitations (signed, expiring, revocable), leaving, removal,
deletion with its follows and trail state, and a group follow's matches in
the group's trail for each member, each with their own read state."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.follows.models import Follow
from accounts.follows.selectors import follow_list, group_follow_list
from accounts.follows.services import follow_create
from accounts.groups.models import GroupInvite, LabGroup, Membership
from accounts.groups.selectors import group_list, invite_find, invite_list, member_list, membership_get
from accounts.groups.services import (
    InviteInvalid,
    group_create,
    group_delete,
    group_leave,
    group_rename,
    invite_accept,
    invite_create,
    invite_revoke,
    member_remove,
    ownership_transfer,
)
from accounts.models import User
from accounts.trail.models import GroupTrailReadMark, GroupTrailState, ReaderMatch
from accounts.trail.selectors import group_trail_unread_total, trail_page, trail_unread_total
from accounts.trail.services import trail_dismiss, trail_mark_read
from tests.accounts.conftest import ago, harvest, record

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(db) -> User:
    return User.objects.create_user(username="owner", password="x")


@pytest.fixture
def member(db) -> User:
    return User.objects.create_user(username="member", password="x")


@pytest.fixture
def outsider(db) -> User:
    return User.objects.create_user(username="outsider", password="x")


@pytest.fixture
def lab(owner, member) -> LabGroup:
    group = group_create(owner=owner, name="  Vision   lab ")
    _, token = invite_create(group=group, by=owner)
    invite_accept(user=member, token=token)
    return group


def ids(page) -> list[str]:
    return [entry.paper.arxiv_id for entry in page.entries]


def test_the_maker_owns_the_group_and_a_link_lets_a_member_in(owner, member, outsider, lab):
    assert lab.name == "Vision lab"
    assert [(m.user, m.role) for m in member_list(group=lab)] == [(owner, "owner"), (member, "member")]
    assert [m.group for m in group_list(user=member)] == [lab]
    assert membership_get(user=outsider, group_id=lab.pk) is None
    assert group_list(user=outsider) == []
    assert group_rename(group=lab, name="Seeing").name == "Seeing"
    with pytest.raises(ValidationError):
        group_rename(group=lab, name="   ")


def test_an_invite_link_expires_and_can_be_revoked(owner, outsider, lab):
    start = timezone.now()
    invite, token = invite_create(group=lab, by=owner, days=2, now=start)
    assert invite_find(token=token, now=start + timedelta(days=1)) == invite
    assert invite in invite_list(group=lab, now=start + timedelta(days=1))
    with pytest.raises(InviteInvalid):
        invite_accept(user=outsider, token=token, now=start + timedelta(days=2, seconds=1))
    assert membership_get(user=outsider, group_id=lab.pk) is None
    assert invite_revoke(group=lab, invite_id=invite.pk, now=start)
    with pytest.raises(InviteInvalid):
        invite_accept(user=outsider, token=token, now=start + timedelta(hours=1))
    assert invite not in invite_list(group=lab, now=start + timedelta(hours=1))


def test_a_tampered_or_foreign_token_lets_nobody_in(owner, outsider, lab):
    other = group_create(owner=owner, name="Other")
    invite, token = invite_create(group=lab, by=owner)
    for bad in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), "", "nonsense", token + "x"):
        with pytest.raises(InviteInvalid):
            invite_accept(user=outsider, token=bad)
    # The nonce is the row's: a link whose invite was re-made with another nonce does not hold.
    GroupInvite.objects.filter(pk=invite.pk).update(nonce="changed")
    with pytest.raises(InviteInvalid):
        invite_accept(user=outsider, token=token)
    assert membership_get(user=outsider, group_id=other.pk) is None


def test_a_member_leaves_the_owner_cannot_and_removal_ends_access_at_once(owner, member, lab):
    with pytest.raises(ValidationError):
        group_leave(membership=membership_get(user=owner, group_id=lab.pk))
    group_leave(membership=membership_get(user=member, group_id=lab.pk))
    assert membership_get(user=member, group_id=lab.pk) is None
    _, token = invite_create(group=lab, by=owner)
    invite_accept(user=member, token=token)
    assert not member_remove(group=lab, user_id=owner.pk)  # the owner is not removed
    assert member_remove(group=lab, user_id=member.pk)
    assert membership_get(user=member, group_id=lab.pk) is None


def test_ownership_passes_to_a_member(owner, member, lab):
    assert ownership_transfer(group=lab, to_user_id=member.pk)
    assert membership_get(user=member, group_id=lab.pk).role == Membership.Role.OWNER
    assert membership_get(user=owner, group_id=lab.pk).role == Membership.Role.MEMBER
    assert not ownership_transfer(group=lab, to_user_id=member.pk)


def test_a_group_follows_matches_are_the_group_trails_with_each_members_own_read_state(owner, member, outsider, lab):
    harvest(record("2611.00001"), at=ago(days=2))  # before the follow: its back-fill
    follow = follow_create(group_id=lab.pk, kind="category", value={"code": "cs.LG"})
    assert group_follow_list(group_id=lab.pk) == [follow] and follow_list(user=owner) == []
    harvest(record("2611.00002"), at=ago(hours=2))  # after: the definition's match
    harvest(record("2611.00003", categories=["math.AG"]), at=ago(hours=1))
    for user in (owner, member):
        assert ids(trail_page(user=user, group_id=lab.pk)) == ["2611.00002", "2611.00001"]
        assert group_trail_unread_total(user=user, group_id=lab.pk) == 2
        # Not in their own trail: the group's follow is not theirs.
        assert ids(trail_page(user=user)) == [] and trail_unread_total(user=user) == 0
    first = trail_page(user=member, group_id=lab.pk).entries[0]
    assert [m.follow_id for m in first.matches] == [follow.pk]
    assert trail_mark_read(user=member, item_ids=[first.item_id], group_id=lab.pk) == 1
    assert group_trail_unread_total(user=member, group_id=lab.pk) == 1
    assert group_trail_unread_total(user=owner, group_id=lab.pk) == 2  # the owner's state is their own
    assert trail_mark_read(user=owner, group_id=lab.pk) == 2
    assert group_trail_unread_total(user=owner, group_id=lab.pk) == 0
    assert group_trail_unread_total(user=member, group_id=lab.pk) == 1
    assert trail_dismiss(user=member, item_id=first.item_id, group_id=lab.pk)
    assert ids(trail_page(user=member, group_id=lab.pk)) == ["2611.00001"]
    assert ids(trail_page(user=owner, group_id=lab.pk)) == ["2611.00002", "2611.00001"]
    # A revision reopens the card for the owner, who had read it.
    harvest(record("2611.00001", versions=2), at=ago(minutes=30))
    assert group_trail_unread_total(user=owner, group_id=lab.pk) == 1


def test_a_personal_follow_of_the_same_definition_keeps_its_own_read_state(owner, lab):
    follow_create(group_id=lab.pk, kind="category", value={"code": "cs.LG"})
    follow_create(user=owner, kind="category", value={"code": "cs.LG"})
    harvest(record("2611.00002"), at=ago(hours=2))
    trail_mark_read(user=owner, group_id=lab.pk)
    assert group_trail_unread_total(user=owner, group_id=lab.pk) == 0
    assert trail_unread_total(user=owner) == 1


def test_a_group_follow_is_delivered_in_the_trail_only_and_is_a_users_or_a_groups(owner, lab):
    with pytest.raises(ValidationError):
        follow_create(group_id=lab.pk, kind="category", value={"code": "cs.LG"}, delivery="daily")
    with pytest.raises(ValueError):
        follow_create(user=owner, group_id=lab.pk, kind="category", value={"code": "cs.LG"})


def test_removal_and_deletion_take_the_follows_and_the_trail_state(owner, member, lab):
    harvest(record("2611.00001"), at=ago(days=2))
    follow_create(group_id=lab.pk, kind="category", value={"code": "cs.LG"})
    harvest(record("2611.00002"), at=ago(hours=2))
    paper_id = trail_page(user=member, group_id=lab.pk).entries[0].item_id
    trail_mark_read(user=member, item_ids=[paper_id], group_id=lab.pk)
    trail_mark_read(user=owner, group_id=lab.pk)
    assert GroupTrailState.objects.filter(user=member).count() == 1
    assert member_remove(group=lab, user_id=member.pk)
    assert GroupTrailState.objects.filter(user=member).count() == 0
    assert ReaderMatch.objects.filter(user__isnull=True).count() == 1  # the back-fill
    group_delete(group=lab)
    assert not LabGroup.objects.exists() and not Membership.objects.exists()
    assert not Follow.objects.exists() and not ReaderMatch.objects.exists()
    assert not GroupTrailState.objects.exists() and not GroupTrailReadMark.objects.exists()


def test_an_owners_deleted_account_hands_the_group_on_or_takes_it_along(owner, member, lab):
    alone = group_create(owner=owner, name="Alone")
    owner.delete()
    assert membership_get(user=member, group_id=lab.pk).role == Membership.Role.OWNER
    assert not LabGroup.objects.filter(pk=alone.pk).exists()
