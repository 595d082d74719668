"""Matching a harvest's new versions: every follow definition once
(accounts.trail.definition_matches), and one follow's back-fill into its
reader's own matches."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import datetime

from django.db.models import Q

from accounts.follows.facts import filters_matcher, is_fulltext, paper_events, sql_query_matcher
from accounts.follows.matching import DayIndex, ExclusionSpec, FollowRules, FollowSpec, match_follows
from accounts.follows.models import Exclusion, Follow
from accounts.follows.topics import TopicScorer
from accounts.follows.window import candidate_papers
from accounts.trail.definition_matches import record_definition_matches
from accounts.trail.lock import TrailWriteResult
from accounts.trail.reader_matches import reader_matches_add
from accounts.trail.signals import versions_matched
from harvest.models import Version

FOLLOW_PAGE = 5000


def follow_specs(*, follow_ids: list[int] | None = None) -> Iterator[FollowSpec]:
    """Unmuted follows in (user, id) order, read a page at a time."""
    follows = Follow.objects.filter(muted=False)
    if follow_ids is not None:
        follows = follows.filter(id__in=follow_ids)
    fields = ("id", "user_id", "kind", "compiled", "include_cross_lists", "include_revisions", "rejected_paper_ids")
    after: tuple[int, int] | None = None
    while True:
        page = follows.order_by("user_id", "id")
        if after is not None:
            page = page.filter(Q(user_id__gt=after[0]) | Q(user_id=after[0], id__gt=after[1]))
        rows = list(page.values_list(*fields)[:FOLLOW_PAGE])
        for fid, user_id, kind, compiled, cross, revisions, rejected in rows:
            yield FollowSpec(fid, user_id, kind, compiled, FollowRules.of(cross, revisions, rejected))
        if len(rows) < FOLLOW_PAGE:
            return
        after = (rows[-1][1], rows[-1][0])


def exclusion_specs(*, user_ids: Iterable[int] | None = None) -> dict[int, list[ExclusionSpec]]:
    exclusions = Exclusion.objects.all()
    if user_ids is not None:
        exclusions = exclusions.filter(user_id__in=list(user_ids))
    out: dict[int, list[ExclusionSpec]] = defaultdict(list)
    for user_id, kind, compiled in exclusions.values_list("user_id", "kind", "compiled"):
        out[user_id].append(ExclusionSpec(kind, compiled))
    return out


def day_index(version_ids: Iterable[int]) -> DayIndex:
    papers = paper_events(version_ids)
    ids = [paper.paper_id for paper in papers]
    return DayIndex(
        papers,
        fulltext=is_fulltext(),
        filters=filters_matcher(ids),
        sql_query=sql_query_matcher(ids),
        topics=TopicScorer(ids),
    )


def match_versions(
    *, version_ids: Iterable[int], follow_ids: list[int] | None = None, topics: bool = False
) -> TrailWriteResult:
    """Match new versions against every unmuted follow, or these ones.

    Every follow (a harvest's batch): each follow definition once, its matches
    recorded for the workers to deliver (`hits` counts those matches); and the
    revisions of saved papers, into the savers' trails. Topic follows are
    matched apart (`topics`), once the batch's papers have their embeddings.
    These follows (a back-fill): into their readers' own matches."""
    index = day_index(version_ids)
    if not index.papers:
        return TrailWriteResult()
    if topics:
        return TrailWriteResult(hits=record_definition_matches(index, topics=True))
    if follow_ids is None:
        result = TrailWriteResult(hits=record_definition_matches(index))
        # Other cards a batch brings (saved papers' revisions, accounts.records)
        # are written by their owners' receivers; a follow's back-fill brings
        # none: the records are not its to replay.
        for _, written in versions_matched.send(sender=TrailWriteResult, events=index.papers):
            if written is not None:
                result.add(written)
        return result
    users = set(Follow.objects.filter(id__in=follow_ids).values_list("user_id", flat=True))
    specs = follow_specs(follow_ids=follow_ids)
    return reader_matches_add(hits=match_follows(index, specs, exclusion_specs(user_ids=users)))


def follow_backfill(*, follow: Follow, since: datetime) -> TrailWriteResult:
    """Record in the trail what this follow would have matched since `since`."""
    papers = candidate_papers(
        follow.kind, follow.compiled, cross_lists=follow.include_cross_lists, since=since, revisions=True
    )
    version_ids = Version.objects.filter(discovered_at__gte=since, paper_id__in=papers.values("id")).values_list(
        "id", flat=True
    )
    return match_versions(version_ids=list(version_ids), follow_ids=[follow.pk])
