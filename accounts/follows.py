"""Writes for follows and exclusions. A new or edited follow is matched at
once against the last PAPERTRAIL_FOLLOW_BACKFILL_DAYS days of the library."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.facts import is_fulltext, papers_facts
from accounts.follow_matching import follow_backfill, window_events
from accounts.follow_values import compile_value
from accounts.matching import DayIndex, ExclusionSpec
from accounts.models import Exclusion, Follow, TrailItem, TrailMatch, User
from accounts.trail import drop_follow_matches, lock_trail
from accounts.trail_delivery import trail_catch_up
from harvest.models import Paper

DEFAULT_MAX_FOLLOWS = 200
DEFAULT_BACKFILL_DAYS = 7
PREVIEW_RECENT = 5
PREVIEW_COUNT_CAP = 1000
MATCHING_FIELDS = ("kind", "compiled", "include_cross_lists", "include_revisions", "muted")


def max_follows() -> int:
    return int(getattr(settings, "PAPERTRAIL_MAX_FOLLOWS", DEFAULT_MAX_FOLLOWS))


def backfill_days() -> int:
    return int(getattr(settings, "PAPERTRAIL_FOLLOW_BACKFILL_DAYS", DEFAULT_BACKFILL_DAYS))


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
    user: User,
    kind: str,
    value: dict[str, Any],
    name: str,
    include_cross_lists: bool = True,
    include_revisions: bool = True,
    muted: bool = False,
    delivery: str = Follow.Delivery.TRAIL,
    now: datetime | None = None,
) -> Follow:
    """A new follow, matched at once against the back-fill window."""
    now = now or timezone.now()
    clean_name = _clean_name(name)
    clean_value, compiled = compile_value(kind, value)
    # The user's row is the lock that keeps two concurrent creations under the limit.
    User.objects.select_for_update().filter(pk=user.pk).first()
    _trail_up_to_date(user)
    limit = max_follows()
    if Follow.objects.filter(user=user).count() >= limit:
        raise ValidationError({"follows": _("At most %(limit)d follows; remove one first.") % {"limit": limit}})
    follow = Follow.objects.create(
        user=user,
        kind=kind,
        name=clean_name,
        value=clean_value,
        compiled=compiled,
        include_cross_lists=include_cross_lists,
        include_revisions=include_revisions,
        muted=muted,
        delivery=_delivery(delivery),
        created_at=now,
        updated_at=now,
    )
    follow_backfill(follow=follow, since=now - timedelta(days=backfill_days()))
    return follow


def _trail_up_to_date(user: User) -> None:
    """Before a change of what the user follows: the matches recorded so far
    are made into cards under the old follows (accounts.trail_delivery), so
    that they are never applied under the new ones. The writers' lock is
    taken alone first: the change's back-fill writes the trail too."""
    lock_trail()
    trail_catch_up(user=user, wait=True)


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
        follow.value, follow.compiled = compile_value(follow.kind, value)
    for field, given in (
        ("include_cross_lists", include_cross_lists),
        ("include_revisions", include_revisions),
        ("muted", muted),
    ):
        if given is not None:
            setattr(follow, field, given)
    if delivery is not None:
        follow.delivery = _delivery(delivery)
    follow.updated_at = now
    follow.save()
    if tuple(getattr(follow, f) for f in MATCHING_FIELDS) != before:
        _trail_up_to_date(follow.user)
        drop_follow_matches(follow_id=follow.pk, only_unread=True)
        follow_backfill(follow=follow, since=now - timedelta(days=backfill_days()))
    return follow


@transaction.atomic
def follow_delete(*, follow: Follow) -> None:
    """Remove a follow and the cards only it had brought (dismissals are kept)."""
    drop_follow_matches(follow_id=follow.pk, only_unread=False)
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
    item_ids = list(TrailMatch.objects.filter(follow=follow, item__paper_id=paper_id).values_list("item_id", flat=True))
    TrailMatch.objects.filter(follow=follow, item_id__in=item_ids).delete()
    TrailItem.objects.filter(id__in=item_ids, dismissed=False, matches__isnull=True).delete()
    return True


# --- preview --------------------------------------------------------------------
@dataclass
class FollowPreview:
    last_7_days: int
    last_30_days: int
    recent: list[Paper]
    # True: more than the figure (PREVIEW_COUNT_CAP), which says "this follow
    # matches a great deal" as well as an exact count would.
    last_7_days_capped: bool = False
    last_30_days_capped: bool = False


def follow_preview(
    *,
    user: User,
    kind: str,
    value: dict[str, Any],
    include_cross_lists: bool = True,
    include_revisions: bool = True,
    now: datetime | None = None,
) -> FollowPreview:
    """What a follow would have brought: papers with a matching event in the
    last 7 and 30 days, and the five most recent (papers not yet in the
    full-text index count once they are, as in the library)."""
    now = now or timezone.now()
    _, compiled = compile_value(kind, value)
    window = window_events(
        kind,
        compiled,
        cross_lists=include_cross_lists,
        revisions=include_revisions,
        since=now - timedelta(days=30),
        limit=PREVIEW_COUNT_CAP + 1,
    )
    # Newest first, so the week's papers lead: its count is exact unless the
    # week alone holds more than the cap.
    week = now - timedelta(days=7)
    in_week = sum(1 for _, at in window if at >= week)
    newest = window[:PREVIEW_RECENT]
    papers = Paper.objects.in_bulk([paper_id for paper_id, _ in newest])
    return FollowPreview(
        last_7_days=min(in_week, PREVIEW_COUNT_CAP),
        last_30_days=min(len(window), PREVIEW_COUNT_CAP),
        recent=[papers[paper_id] for paper_id, _ in newest if paper_id in papers],
        last_7_days_capped=in_week > PREVIEW_COUNT_CAP,
        last_30_days_capped=len(window) > PREVIEW_COUNT_CAP,
    )


# --- exclusions -------------------------------------------------------------------
@transaction.atomic
def exclusion_create(*, user: User, kind: str, value: str) -> Exclusion:
    """Exclude a category (code or archive) or a keyword query from every
    follow; the unread cards it covers leave the trail."""
    if kind == Exclusion.Kind.CATEGORY:
        clean, compiled = compile_value("category", {"code": value})
        text = clean["code"]
    elif kind == Exclusion.Kind.QUERY:
        clean, compiled = compile_value("query", {"q": value})
        text = clean["q"]
    else:
        raise ValidationError({"kind": _("Exclude a category or a query.")})
    if Exclusion.objects.filter(user=user, kind=kind, value=text).exists():
        raise ValidationError({"value": _("%(value)s is already excluded.") % {"value": text}})
    _trail_up_to_date(user)
    exclusion = Exclusion.objects.create(user=user, kind=kind, value=text, compiled=compiled)
    _drop_excluded_unread(user=user, spec=ExclusionSpec(kind, compiled))
    return exclusion


def _drop_excluded_unread(*, user: User, spec: ExclusionSpec) -> None:
    items = TrailItem.objects.filter(user=user, unread=True, dismissed=False)
    latest = {
        paper_id: (vid, number, at)
        for paper_id, vid, number, at in items.values_list(
            "paper_id", "latest_version_id", "latest_version_number", "latest_event_at"
        )
    }
    if not latest:
        return
    index = DayIndex(papers_facts(latest, set()), fulltext=is_fulltext())
    excluded = [index.papers[i].paper_id for i in index.excluded([spec])]
    if excluded:
        items.filter(paper_id__in=excluded).delete()


@transaction.atomic
def exclusion_delete(*, user: User, exclusion_id: int) -> bool:
    deleted, _ = Exclusion.objects.filter(user=user, pk=exclusion_id).delete()
    return bool(deleted)
