"""Writes for follows and exclusions. What a change means for the trail (a
new or edited follow starting anew with its back-fill over the last
PAPERTRAIL_FOLLOW_BACKFILL_DAYS days, the unread cards a new exclusion takes
away, the reader's stored counts gone stale) is the trail's to do:
these writes announce each change (accounts.follows.signals), in the same
transaction, and the trail answers with one call, `follow_matching_start`,
which returns what the follow's back-fill matched."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.follows import signals
from accounts.follows.definition import FollowDefinition
from accounts.follows.matching import ExclusionSpec, FollowRules, FollowSpec, Hit, match_follows
from accounts.follows.models import Exclusion, Follow
from accounts.follows.selectors import day_index
from accounts.follows.window import candidate_papers
from accounts.models import User
from harvest.models import Version

MATCHING_FIELDS = ("kind", "compiled", "include_cross_lists", "include_revisions", "muted")


def max_follows() -> int:
    return settings.PAPERTRAIL_MAX_FOLLOWS


def backfill_days() -> int:
    return settings.PAPERTRAIL_FOLLOW_BACKFILL_DAYS


def _clean_name(name: str) -> str:
    name = " ".join(str(name or "").split())
    if not name:
        raise ValidationError({"name": _("Give the follow a name.")})
    if len(name) > 200:
        raise ValidationError({"name": _("A follow's name has at most 200 characters.")})
    return name


def _delivery(delivery: str) -> str:
    if delivery not in Follow.Delivery.values:
        raise ValidationError(
            {"delivery": _("Choose one of %(choices)s.") % {"choices": ", ".join(Follow.Delivery.values)}}
        )
    return delivery


@transaction.atomic
def follow_create(
    *,
    user: User | None = None,
    group_id: int | None = None,
    kind: str,
    value: dict[str, Any] | FollowDefinition,
    name: str | None = None,
    include_cross_lists: bool = True,
    include_revisions: bool = True,
    muted: bool = False,
    delivery: str = Follow.Delivery.TRAIL,
    now: datetime | None = None,
) -> Follow:
    """A new follow of a user or (`group_id`) of a lab group, matched at once
    against the back-fill window; named after what it follows when no name is
    given (None; an empty one is refused). A group's follow is delivered in its
    trail only (alerts are a user's)."""
    if (user is None) == (group_id is None):
        raise ValueError("a follow is a user's or a group's")
    now = now or timezone.now()
    definition = value if isinstance(value, FollowDefinition) else FollowDefinition.parse(kind, value)
    clean_name = _clean_name(definition.default_name() if name is None else name)
    if group_id is not None and delivery != Follow.Delivery.TRAIL:
        raise ValidationError({"delivery": _("A group's follow is delivered in its trail.")})
    # The owner's row is the lock that keeps two concurrent creations under the limit.
    owner = Follow.group.field.related_model if group_id is not None else User
    owner.objects.select_for_update().filter(pk=group_id if group_id is not None else user.pk).first()
    limit = max_follows()
    mine = Follow.objects.filter(group_id=group_id) if group_id is not None else Follow.objects.filter(user=user)
    if mine.count() >= limit:
        raise ValidationError({"follows": _("At most %(limit)d follows; remove one first.") % {"limit": limit}})
    follow = Follow.objects.create(
        user=user,
        group_id=group_id,
        kind=kind,
        name=clean_name,
        value=dict(definition.value),
        compiled=dict(definition.compiled),
        include_cross_lists=include_cross_lists,
        include_revisions=include_revisions,
        muted=muted,
        delivery=_delivery(delivery),
        created_at=now,
        updated_at=now,
    )
    signals.follow_matching_changed.send(
        sender=Follow, follow=follow, created=True, since=now - timedelta(days=backfill_days())
    )
    return follow


@transaction.atomic
def follow_update(
    *,
    follow: Follow,
    name: str | None = None,
    value: dict[str, Any] | None = None,
    include_cross_lists: bool | None = None,
    include_revisions: bool | None = None,
    muted: bool | None = None,
    delivery: str | None = None,
    now: datetime | None = None,
) -> Follow:
    """Change a follow; when what it matches changed, its reasons on unread
    cards are replaced by a fresh back-fill."""
    now = now or timezone.now()
    before = tuple(getattr(follow, f) for f in MATCHING_FIELDS)
    if name is not None:
        follow.name = _clean_name(name)
    if value is not None:
        definition = value if isinstance(value, FollowDefinition) else FollowDefinition.parse(follow.kind, value)
        follow.value, follow.compiled = dict(definition.value), dict(definition.compiled)
    for field, given in (
        ("include_cross_lists", include_cross_lists),
        ("include_revisions", include_revisions),
        ("muted", muted),
    ):
        if given is not None:
            setattr(follow, field, given)
    if delivery is not None:
        if follow.group_id is not None and delivery != Follow.Delivery.TRAIL:
            raise ValidationError({"delivery": _("A group's follow is delivered in its trail.")})
        follow.delivery = _delivery(delivery)
    follow.updated_at = now
    rematch = tuple(getattr(follow, f) for f in MATCHING_FIELDS) != before
    follow.save()
    if rematch:
        signals.follow_matching_changed.send(
            sender=Follow, follow=follow, created=False, since=now - timedelta(days=backfill_days())
        )
    return follow


@transaction.atomic
def follow_delete(*, follow: Follow) -> None:
    """Remove a follow and the cards only it had brought (dismissals are kept)."""
    signals.follow_deleting.send(sender=Follow, follow=follow)
    follow.delete()


@transaction.atomic
def author_variant_reject(*, user: User, follow_id: int, paper_id: int) -> bool:
    """ "Not this person": this author follow no longer matches this paper,
    revisions included; its reason leaves the card (and a card left without
    reasons leaves the trail)."""
    follow = Follow.objects.select_for_update().filter(pk=follow_id, user=user, kind=Follow.Kind.AUTHOR).first()
    if follow is None:
        return False
    if paper_id not in follow.rejected_paper_ids:
        follow.rejected_paper_ids = [*follow.rejected_paper_ids, paper_id]
        follow.save(update_fields=["rejected_paper_ids"])
    signals.author_variant_rejected.send(sender=Follow, follow=follow, paper_id=paper_id)
    return True


# --- exclusions -------------------------------------------------------------------
@transaction.atomic
def exclusion_create(*, user: User, kind: str, value: str) -> Exclusion:
    """Exclude a category (code or archive) or a keyword query from every
    follow; the unread cards it covers leave the trail."""
    definition = FollowDefinition.exclusion(kind, value)
    text = definition.text
    if Exclusion.objects.filter(user=user, kind=kind, value=text).exists():
        raise ValidationError({"value": _("%(value)s is already excluded.") % {"value": text}})
    signals.follows_changing.send(sender=Exclusion, user=user)
    exclusion = Exclusion.objects.create(user=user, kind=kind, value=text, compiled=dict(definition.compiled))
    signals.exclusion_created.send(sender=Exclusion, user=user, exclusion=exclusion)
    return exclusion


@transaction.atomic
def exclusion_delete(*, user: User, exclusion_id: int) -> bool:
    signals.follows_changing.send(sender=Exclusion, user=user)
    deleted, _ = Exclusion.objects.filter(user=user, pk=exclusion_id).delete()
    return bool(deleted)


def follow_matching_start(*, follow: Follow, after_match_id: int, since: datetime) -> list[Hit]:
    """A new or edited follow starts: its definition's matches count from
    after `after_match_id` (the trail's newest), and what it would have
    matched since `since` (its back-fill) is returned for the trail to keep,
    under the follow's switches and its reader's exclusions; nothing for a
    muted follow. A list, not a stream: the trail stores it without calling
    back into follows (a week's back-fill of cs.LG is a few thousand hits)."""
    follow.matched_after = after_match_id
    Follow.objects.filter(pk=follow.pk).update(matched_after=after_match_id)
    if follow.muted:
        return []
    papers = candidate_papers(
        follow.kind, follow.compiled, cross_lists=follow.include_cross_lists, since=since, revisions=True
    )
    versions = Version.objects.filter(discovered_at__gte=since, paper_id__in=papers.values("id"))
    index = day_index(versions.values_list("id", flat=True))
    rules = FollowRules.of(follow.include_cross_lists, follow.include_revisions, follow.rejected_paper_ids)
    spec = FollowSpec(follow.pk, follow.user_id, follow.kind, follow.compiled, rules)
    # A group's follow has no exclusions (they are a user's).
    exclusions = [
        ExclusionSpec(kind, compiled)
        for kind, compiled in Exclusion.objects.filter(user_id=follow.user_id).values_list("kind", "compiled")
        if follow.user_id is not None
    ]
    return list(match_follows(index, [spec], {follow.user_id: exclusions}))
