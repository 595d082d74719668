"""Reads of follows: a user's follows and exclusions, author candidates for a
new author follow, and what a follow would have brought (its preview)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.follows.authors import AuthorCandidate, author_candidates
from accounts.follows.definition import FollowDefinition
from accounts.follows.models import Exclusion, Follow
from accounts.follows.window import window_events
from accounts.models import User
from harvest.models import Paper

__all__ = [
    "AuthorCandidate",
    "FollowPreview",
    "author_candidates",
    "exclusion_list",
    "follow_get",
    "follow_list",
    "follow_preview",
]
PREVIEW_RECENT = 5
PREVIEW_COUNT_CAP = 1000


def follow_list(*, user: User) -> list[Follow]:
    return list(Follow.objects.filter(user=user).order_by("id"))


def follow_get(*, user: User, follow_id: int) -> Follow | None:
    """The user's follow of this id; None for another user's."""
    return Follow.objects.filter(user=user, pk=follow_id).first()


def exclusion_list(*, user: User) -> list[Exclusion]:
    return list(Exclusion.objects.filter(user=user).order_by("id"))


@dataclass
class FollowPreview:
    last_7_days: int
    last_30_days: int
    recent: list[Paper]  # newest event first
    # When each of `recent` reached the library (its matching version), the order they are listed in.
    recent_at: list[datetime] = field(default_factory=list)
    # True: more than the figure (PREVIEW_COUNT_CAP), which says "this follow
    # matches a great deal" as well as an exact count would.
    last_7_days_capped: bool = False
    last_30_days_capped: bool = False

    @property
    def listed(self) -> list[tuple[Paper, datetime]]:
        return list(zip(self.recent, self.recent_at, strict=True))


def follow_preview(
    *,
    user: User,
    kind: str,
    value: dict[str, Any] | FollowDefinition,
    include_cross_lists: bool = True,
    include_revisions: bool = True,
    now: datetime | None = None,
) -> FollowPreview:
    """What a follow would have brought: papers with a matching event in the
    last 7 and 30 days, and the five most recent (papers not yet in the
    full-text index count once they are, as in the library)."""
    now = now or timezone.now()
    compiled = (value if isinstance(value, FollowDefinition) else FollowDefinition.parse(kind, value)).compiled
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
        recent_at=[at for paper_id, at in newest if paper_id in papers],
        last_7_days_capped=in_week > PREVIEW_COUNT_CAP,
        last_30_days_capped=len(window) > PREVIEW_COUNT_CAP,
    )
