"""One follow against the recent past: the papers it matches in a window of
the library, by the library's own indexes (its back-fill and its preview)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from accounts.follows.authors import author_ids_for
from accounts.follows.facts import is_fulltext
from accounts.follows.topics import topic_paper_ids
from harvest.badges import dated_since, version_dated
from harvest.filters import PaperFilterSet, full_text_search
from harvest.models import Authorship, Paper, PaperCategory, Version

# A window paper's vector checked by primary key (de-TOASTed) costs about four
# times a match the GIN index finds (bench/SCALE.md: `model sets`, 75,000
# matches, 1.5 s either way against a 48,000-paper window).
WINDOW_CHECK_RATIO = 4
WINDOW_ROWS_PER_PAPER = 1.2


def candidate_papers(
    kind: str,
    compiled: Mapping[str, Any],
    *,
    cross_lists: bool,
    since: datetime,
    revisions: bool = True,
    pending: bool = True,
) -> QuerySet[Paper]:
    """Papers with a version stored since `since` that the follow matches, by
    the library's indexes: exactly for categories, authors and filters without
    `q`; for full-text queries, the indexed papers that match plus those not
    indexed yet when `pending` (which matching checks on their lexemes)."""
    events = Version.objects.filter(discovered_at__gte=since)
    if not revisions:
        events = events.filter(number=1)
    papers = Paper.objects.filter(id__in=events.values("paper_id"))
    if kind == "category":
        return papers.filter(Exists(_category_links(compiled, cross_lists).filter(paper=OuterRef("pk"))))
    if kind == "author":
        authors = author_ids_for(compiled["variants"])
        return papers.filter(id__in=Authorship.objects.filter(author_id__in=authors).values("paper_id"))
    if kind == "topic":
        return Paper.objects.filter(pk__in=topic_paper_ids(compiled, papers))
    if kind == "filters":
        params = {key: value for key, value in compiled["data"].items() if key != "q"}
        papers = PaperFilterSet(params, queryset=papers).qs.order_by()
        query = compiled.get("query")
        return _query_candidates(papers, query, pending) if query else papers
    return _query_candidates(papers, compiled, pending)


def _category_links(compiled: Mapping[str, Any], cross_lists: bool) -> QuerySet[PaperCategory]:
    if "archive" in compiled:
        links = PaperCategory.objects.filter(
            Q(category=compiled["archive"]) | Q(category__startswith=f"{compiled['archive']}.")
        )
    else:
        links = PaperCategory.objects.filter(category=compiled["code"])
    return links if cross_lists else links.filter(is_primary=True)


def _query_candidates(papers: QuerySet[Paper], compiled: Mapping[str, Any], pending: bool) -> QuerySet[Paper]:
    found = full_text_search(papers, compiled["q"])
    if not is_fulltext() or not pending:
        return found
    return papers.filter(Q(id__in=found.values("id")) | Q(search_pending=True))


def window_events(
    kind: str, compiled: Mapping[str, Any], *, cross_lists: bool, revisions: bool, since: datetime, limit: int
) -> list[tuple[int, datetime]]:
    """The follow's papers with a version arXiv dated since `since` (not one
    this library stored since: a back-fill's old papers are not recent),
    newest stored first, each with its latest such version's date, at most
    `limit` of them. The window's versions are walked newest first and the
    walk stops at the limit, so a follow that matches thousands of papers a
    month (cs.LG, `model`) costs what its first thousand do."""
    events = _window_versions(kind, compiled, cross_lists=cross_lists, revisions=revisions, since=since, limit=limit)
    newest_first = events.order_by("-discovered_at").only("paper_id", "submitted", "announced")
    # A plain LIMIT, not a server-side cursor: PostgreSQL runs a cursor's walk
    # in one process, a LIMIT's in parallel (140 ms against 300 for `model
    # sets`). A month's window has 1.08 versions a paper (one million papers),
    # so one query is the rule; a second, four times longer, starts again.
    rows_wanted = math.ceil(limit * WINDOW_ROWS_PER_PAPER)
    while True:
        rows = list(newest_first[:rows_wanted])
        latest: dict[int, datetime] = {}
        for version in rows:
            if version.paper_id not in latest:
                latest[version.paper_id] = version_dated(version)
                if len(latest) == limit:
                    return list(latest.items())
        if len(rows) < rows_wanted:
            return list(latest.items())
        rows_wanted *= 4


def _window_versions(
    kind: str, compiled: Mapping[str, Any], *, cross_lists: bool, revisions: bool, since: datetime, limit: int
) -> QuerySet[Version]:
    # A version is stored after arXiv dates it: the stored time bounds the walk's index range.
    events = Version.objects.filter(dated_since(since), discovered_at__gte=since)
    if not revisions:
        events = events.filter(number=1)
    if kind == "category":
        # The window's versions, newest first, probing their paper's
        # categories until the limit: cs.LG stops after about 2,000 probes.
        return events.filter(Exists(_category_links(compiled, cross_lists).filter(paper_id=OuterRef("paper_id"))))
    if kind == "query" and is_fulltext() and _walk_is_cheaper(compiled, events, limit):
        # Each window version, newest first, checks its own paper's vector,
        # and the walk stops at the limit.
        paper = full_text_search(Paper.objects.filter(pk=OuterRef("paper_id")), compiled["q"])
        return events.filter(Exists(paper.values("pk")))
    papers = candidate_papers(kind, compiled, cross_lists=cross_lists, since=since, revisions=revisions, pending=False)
    return events.filter(paper_id__in=papers.values("id"))


def _walk_is_cheaper(compiled: Mapping[str, Any], events: QuerySet[Version], limit: int) -> bool:
    """Walking the window until `limit` matches checks about limit / share
    papers (all the window's at most); the library's GIN index reads every
    match the query has, however old. A broad word (`model`, in 39 % of
    papers) walks a few thousand versions instead of reading 390,000 matches;
    a rare one reads its few matches instead of walking the whole window."""
    matches = max(1, _planned_rows(full_text_search(Paper.objects.all(), compiled["q"])))
    papers = max(1, _planned_rows(Paper.objects.all()))
    walked = min(_planned_rows(events), limit * papers / matches)
    return WINDOW_CHECK_RATIO * walked < matches


def _planned_rows(queryset: QuerySet) -> int:
    """The planner's estimate of the rows a query returns (one EXPLAIN, no rows read)."""
    sql, params = queryset.order_by().query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return int(plan[0]["Plan"]["Plan Rows"])
