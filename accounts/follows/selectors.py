"""Reads of follows: a user's follows and exclusions, author candidates for a
new author follow, and what a follow would have brought (its preview); and
what the trail matches with: the definitions to evaluate, a batch's index
(`day_index`), a definition's hits in it, a reader's follows and exclusions."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from accounts.follows.authors import AuthorCandidate, author_candidates
from accounts.follows.definition import FollowDefinition
from accounts.follows.facts import filters_matcher, is_fulltext, paper_events, papers_facts, sql_query_matcher
from accounts.follows.matching import DayIndex, ExclusionSpec, FollowRules, PaperFacts
from accounts.follows.models import Exclusion, Follow
from accounts.follows.topics import TopicScorer
from accounts.follows.window import window_events
from accounts.models import User
from harvest.models import Paper

__all__ = [
    "AuthorCandidate",
    "FollowPreview",
    "ReaderFollow",
    "author_candidates",
    "day_index",
    "definition_hits",
    "excluded_paper_ids",
    "exclusion_list",
    "follow_definitions",
    "follow_get",
    "follow_list",
    "follow_preview",
    "group_follow_get",
    "group_follow_list",
    "reader_exclusion_keys",
    "reader_follows",
    "readers_exclusion_keys",
    "readers_follows",
    "topic_follows_exist",
]
PREVIEW_RECENT = 5
PREVIEW_COUNT_CAP = 1000


def follow_list(*, user: User) -> list[Follow]:
    return list(Follow.objects.filter(user=user).order_by("id"))


def follow_get(*, user: User, follow_id: int) -> Follow | None:
    """The user's follow of this id; None for another user's."""
    return Follow.objects.filter(user=user, pk=follow_id).first()


def group_follow_list(*, group_id: int) -> list[Follow]:
    """A lab group's follows (the caller has checked the reader is a member)."""
    return list(Follow.objects.filter(group_id=group_id).order_by("id"))


def group_follow_get(*, group_id: int, follow_id: int) -> Follow | None:
    return Follow.objects.filter(group_id=group_id, pk=follow_id).first()


def exclusion_list(*, user: User) -> list[Exclusion]:
    return list(Exclusion.objects.filter(user=user).order_by("id"))


@dataclass
class FollowPreview:
    last_7_days: int
    last_30_days: int
    recent: list[Paper]  # newest event first
    # arXiv's date of each of `recent`'s matching version (not when the library stored it).
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
    """What a follow would have brought: papers with a matching version arXiv
    dated in the last 7 and 30 days, and the five most recent (papers not yet in the
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


# --- what the trail matches with ---------------------------------------------------
def day_index(version_ids: Iterable[int]) -> DayIndex:
    """A batch of versions indexed once for matching: each paper's latest
    event, with the library's filters, PostgreSQL's tsquery and the topics'
    scorer over the batch's papers."""
    papers = paper_events(version_ids)
    ids = [paper.paper_id for paper in papers]
    return DayIndex(
        papers,
        fulltext=is_fulltext(),
        filters=filters_matcher(ids),
        sql_query=sql_query_matcher(ids),
        topics=TopicScorer(ids),
    )


def topic_follows_exist() -> bool:
    return Follow.objects.filter(kind=Follow.Kind.TOPIC, muted=False).exists()


def follow_definitions(*, topics: bool = False) -> Iterator[tuple[int, str, Mapping[str, Any]]]:
    """(key, kind, compiled) of every distinct definition an unmuted follow
    or an exclusion uses, each once; or (`topics`) of the topic follows alone."""
    seen: set[int] = set()
    follows = Follow.objects.filter(muted=False)
    follows = (
        follows.filter(kind=Follow.Kind.TOPIC) if topics else follows.exclude(kind=Follow.Kind.TOPIC)
    ).values_list("kind", "compiled")
    if connection.vendor == "postgresql":
        follows = follows.distinct()  # jsonb compares by value: 300,000 follows, about 120,000 definitions
    definitions = (FollowDefinition.stored(kind, compiled) for kind, compiled in follows.order_by().iterator(5000))
    exclusions = Exclusion.objects.none() if topics else Exclusion.objects.all()
    excluded = (
        FollowDefinition.of_exclusion(kind, compiled) for kind, compiled in exclusions.values_list("kind", "compiled")
    )
    for source in (definitions, excluded):
        for definition in source:
            key = definition.key
            if key not in seen:
                seen.add(key)
                yield key, definition.kind, definition.compiled


def definition_hits(
    index: DayIndex, definitions: Iterable[tuple[int, str, Mapping[str, Any]]]
) -> Iterator[tuple[int, PaperFacts, bool, dict[str, Any]]]:
    """(key, paper, primary, reason) of each definition's matches in the
    batch, each definition evaluated once and forgotten (memory stays flat)."""
    for key, kind, compiled in definitions:
        for i, reason in index.evaluate(kind, compiled, remember=False).items():
            primary = reason.get("primary", True) if kind == "category" else True
            yield key, index.papers[i], primary, reason


def excluded_paper_ids(*, exclusion: Exclusion, latest: Mapping[int, tuple[int, int, datetime]]) -> list[int]:
    """Which of these papers (paper id -> latest version id, number and
    time) the exclusion covers."""
    index = DayIndex(papers_facts(latest, set()), fulltext=is_fulltext())
    spec = ExclusionSpec(exclusion.kind, exclusion.compiled)
    return [index.papers[i].paper_id for i in index.excluded([spec])]


@dataclass(frozen=True, slots=True)
class ReaderFollow:
    """One of a reader's unmuted follows as the trail composes it: the key of
    its definition, where its definition's matches start (`after`, a match
    id) and its own switches."""

    id: int
    name: str
    kind: str
    key: int
    after: int
    rules: FollowRules


def reader_follows(*, user_id: int | None = None, group_id: int | None = None) -> list[ReaderFollow]:
    """A user's unmuted follows, or (`group_id`) a lab group's."""
    if group_id is not None:
        return readers_follows(user_ids=[], group_ids=[group_id]).get(("group", group_id), [])
    return readers_follows(user_ids=[user_id], group_ids=[]).get(("user", user_id), [])


def readers_follows(*, user_ids: Iterable[int], group_ids: Iterable[int]) -> dict[tuple[str, int], list[ReaderFollow]]:
    """The unmuted follows of these users and lab groups, by ("user", id) or
    ("group", id): one query for any number of readers."""
    users, groups = list(user_ids), list(group_ids)
    if not users and not groups:
        return {}
    fields = ("id", "name", "kind", "compiled", "matched_after", "include_cross_lists", "include_revisions")
    rows = Follow.objects.filter(Q(user_id__in=users) | Q(group_id__in=groups), muted=False).values_list(
        *fields, "rejected_paper_ids", "user_id", "group_id"
    )
    found: dict[tuple[str, int], list[ReaderFollow]] = {}
    for follow_id, name, kind, compiled, after, cross, revisions, rejected, user_id, group_id in rows:
        owner = ("group", group_id) if group_id is not None else ("user", user_id)
        found.setdefault(owner, []).append(
            ReaderFollow(
                id=follow_id,
                name=name,
                kind=kind,
                key=FollowDefinition.stored(kind, compiled).key,
                after=after,
                rules=FollowRules.of(cross, revisions, rejected),
            )
        )
    return found


def reader_exclusion_keys(*, user_id: int) -> frozenset[int]:
    """The definition keys of the reader's exclusions."""
    return readers_exclusion_keys(user_ids=[user_id]).get(user_id, frozenset())


def readers_exclusion_keys(*, user_ids: Iterable[int]) -> dict[int, frozenset[int]]:
    """The definition keys of these readers' exclusions, by user (one query)."""
    found: dict[int, set[int]] = {}
    for user_id, kind, compiled in Exclusion.objects.filter(user_id__in=list(user_ids)).values_list(
        "user_id", "kind", "compiled"
    ):
        found.setdefault(user_id, set()).add(FollowDefinition.of_exclusion(kind, compiled).key)
    return {user_id: frozenset(keys) for user_id, keys in found.items()}
