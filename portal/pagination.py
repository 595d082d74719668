"""Keyset pagination for paper lists: a page is found from the last row of the
previous one (an opaque `cursor` in the URL), so a deep page costs what the
first one does and rows inserted meanwhile do not shift it.

A page keeps the order its queryset arrives in: harvest.filters.sorted_papers
orders by `<date> DESC [NULLS LAST], id DESC`, or for the popular sort
`popularity DESC, id DESC` (the stored score; never null), and the cursor
continues that order.
Relevance pages (ranked full-text search, on both databases) use a bounded
offset instead: past a few hundred results a ranking has said what it can. For
the same reason, and because ranking reads every candidate's search vector, a
query matching more than RANK_CANDIDATES papers is ranked on PostgreSQL among
its RANK_CANDIDATES most recently updated matches (a broad word matches a fifth
of a million-paper library; ranking all of them took seconds). RANK_CANDIDATES
is MAX_RELEVANCE_OFFSET: no page of a ranking goes deeper anyway.

Counts are bounded too (COUNT_CAP): past a thousand papers, "more than 1,000"
tells a reader what an exact figure would, and counting a filtered million-paper
library row by row cost up to a quarter of a second per page.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.core.cache import cache
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import F, Q, QuerySet, Value
from django.db.models.expressions import RawSQL
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from harvest.filters import (
    NULLABLE_DATE_FIELDS,
    SORT_DATE_FIELD,
    SORT_POPULAR,
    SORT_RELEVANCE,
    SORT_UPDATED,
    is_postgresql,
    sorted_papers,
)
from harvest.models import Paper
from portal.stats import overview_stats_cached

MAX_RELEVANCE_OFFSET = 1000
RANK_CANDIDATES = 1000
COUNT_CAP = 1000
# How many candidates' worth of papers the update-time bound of a ranked search
# takes, from the planner's estimate of the share that matches (see _rank_candidates).
BOUND_MARGIN = 2
# Reading a row's search vector while walking the update-time index costs about
# fifteen times what the GIN index spends per match, so the walk pays only for
# words in more than about 12 % of papers (docs/decisions.md).
WALK_COST_RATIO = 15
# A heap read of a match costs about as much as walking nine index entries twice.
BOUND_ENTRIES_PER_HEAP_READ = 9
# Update-time bounds are kept this long, for depths in steps of a fifth.
BOUND_CACHE_SECONDS = 300
BOUND_DEPTH_STEP = 1.2


class CursorError(ValueError):
    """A cursor that does not decode or belongs to another sort."""


@dataclass(slots=True)
class Page:
    papers: list[Paper]
    next_cursor: str | None
    is_first: bool
    # (count, capped) as bounded_count() gives it, when finding the page counted the matches anyway.
    count: tuple[int, bool] | None = None


def _encode(payload: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")


def _decode(cursor: str, sort: str) -> dict:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, UnicodeError, binascii.Error):
        raise CursorError(_("cursor: this page link is damaged; start again from the first page.")) from None
    if not isinstance(payload, dict) or payload.get("s") != sort:
        raise CursorError(_("cursor: this page link belongs to another sort; start again from the first page."))
    if sort == SORT_RELEVANCE:
        offset = payload.get("o")
        if not isinstance(offset, int) or not 0 < offset <= MAX_RELEVANCE_OFFSET:
            raise CursorError(_("cursor: this page link is damaged; start again from the first page."))
        return payload
    row_id, value = payload.get("i"), payload.get("v")
    if sort == SORT_POPULAR:
        if not isinstance(row_id, int) or isinstance(value, bool) or not isinstance(value, int | float):
            raise CursorError(_("cursor: this page link is damaged; start again from the first page."))
        return {"id": row_id, "value": float(value)}
    moment = parse_datetime(value) if isinstance(value, str) else None
    if not isinstance(row_id, int) or (value is not None and moment is None):
        raise CursorError(_("cursor: this page link is damaged; start again from the first page."))
    return {"id": row_id, "value": moment}


def keyset_page(queryset: QuerySet[Paper], *, sort: str, cursor: str | None, size: int) -> Page:
    """One page of `queryset`, filtered and in the order of `sort` already
    (PaperFilterSet.qs, or harvest.filters.sorted_papers)."""
    if not queryset.ordered:
        raise ValueError("keyset_page needs the papers in the order of their sort (harvest.filters.sorted_papers)")
    if sort == SORT_RELEVANCE:
        return _offset_page(queryset, sort=sort, cursor=cursor, size=size)
    if sort == SORT_POPULAR:
        return _score_page(queryset, sort=sort, cursor=cursor, size=size)
    column = SORT_DATE_FIELD[sort]
    ordered = queryset
    position = _decode(cursor, sort) if cursor else None
    nullable = column in NULLABLE_DATE_FIELDS
    if position is None:
        rows = list(ordered[: size + 1])
    elif position["value"] is None:
        rows = list(ordered.filter(**{f"{column}__isnull": True, "id__lt": position["id"]})[: size + 1])
    else:
        value = position["value"]
        # `col <= v AND (col < v OR id < i)`: the first condition lets the
        # index start at the cursor; the second skips what was already shown.
        after = Q(**{f"{column}__lte": value}) & (Q(**{f"{column}__lt": value}) | Q(id__lt=position["id"]))
        rows = list(ordered.filter(after)[: size + 1])
        if nullable and len(rows) <= size:
            rows += list(ordered.filter(**{f"{column}__isnull": True})[: size + 1 - len(rows)])
    has_more = len(rows) > size
    rows = rows[:size]
    next_cursor = None
    if has_more and rows:
        last = rows[-1]
        moment: datetime | None = getattr(last, column)
        next_cursor = _encode({"s": sort, "v": moment.isoformat() if moment else None, "i": last.pk})
    return Page(papers=rows, next_cursor=next_cursor, is_first=cursor is None)


def _score_page(queryset: QuerySet[Paper], *, sort: str, cursor: str | None, size: int) -> Page:
    """A keyset page of the popular sort: by the stored score, ties by id."""
    ordered = queryset
    if cursor:
        position = _decode(cursor, sort)
        value = position["value"]
        after = Q(popularity__lte=value) & (Q(popularity__lt=value) | Q(id__lt=position["id"]))
        ordered = ordered.filter(after)
    rows = list(ordered[: size + 1])
    next_cursor = None
    if len(rows) > size:
        last = rows[size - 1]
        next_cursor = _encode({"s": sort, "v": last.popularity, "i": last.pk})
    return Page(papers=rows[:size], next_cursor=next_cursor, is_first=cursor is None)


def _offset_page(queryset: QuerySet[Paper], *, sort: str, cursor: str | None, size: int) -> Page:
    offset = _decode(cursor, sort)["o"] if cursor else 0
    candidates, count = _rank_candidates(queryset)
    rows = list(candidates.order_by(*queryset.query.order_by)[offset : offset + size + 1])
    has_more = len(rows) > size and offset + size < MAX_RELEVANCE_OFFSET
    next_cursor = _encode({"s": sort, "o": offset + size}) if has_more else None
    return Page(papers=rows[:size], next_cursor=next_cursor, is_first=cursor is None, count=count)


def _rank_candidates(queryset: QuerySet[Paper]) -> tuple[QuerySet[Paper], tuple[int, bool] | None]:
    """The matches to rank: all of them, or the RANK_CANDIDATES most recently
    updated when the planner expects more (one EXPLAIN, no rows read); and the
    bounded count of the matches when finding the candidates told it.

    Finding the newest matches has two shapes and PostgreSQL picks the wrong
    one for mid-selectivity words (it underestimates reading each search
    vector). Walking the update-time index until enough rows match reads
    RANK_CANDIDATES / share rows, each with its search vector: the cheaper
    shape for a common word (`model`, in 39 % of the papers). Otherwise the
    matches are collected from the GIN index, limited to the papers updated
    since a bound that should hold about BOUND_MARGIN x RANK_CANDIDATES matches
    (from the planner's estimate of the share), so PostgreSQL intersects the GIN
    bitmap with the update-time index and reads only those rows from the heap,
    not one per match; if the
    bound holds fewer than RANK_CANDIDATES matches, every match is collected
    after all. The candidates are found in one query and ranked in the next, by
    primary key, so the ranking reads 1,000 search vectors, never the 20,000 again.

    SQLite ranks every match: its FTS5 index scores them itself, and a library
    on SQLite (`make run`) holds a few thousand papers."""
    if not is_postgresql():
        return queryset, None
    expected = _planned_rows(queryset)
    if expected <= RANK_CANDIDATES:
        return queryset, None
    library = max(expected, _library_size())
    limit = max(RANK_CANDIDATES, COUNT_CAP) + 1
    ids: list[int] | None = None
    complete = True  # read from every match, not from those since a bound
    if expected * expected >= WALK_COST_RATIO * RANK_CANDIDATES * library:
        ids = _newest_ids(sorted_papers(queryset, SORT_UPDATED), limit)
    else:
        # An order no index serves, so the plan collects the matches first.
        collect = [(F("updated") + Value(timedelta(0))).desc(nulls_last=True), F("id").desc()]
        depth = int(RANK_CANDIDATES * BOUND_MARGIN * library / expected)
        # Finding the bound and the bitmap walks `depth` index entries twice;
        # it pays when that costs less than the heap reads it saves.
        pays = depth < BOUND_ENTRIES_PER_HEAP_READ * (expected - BOUND_MARGIN * RANK_CANDIDATES)
        bound = _updated_at_depth(depth) if pays and 2 * depth < library else None
        if bound is not None:
            ids = _newest_ids(queryset.filter(updated__gte=bound).order_by(*collect), limit)
            complete = False
            if len(ids) < RANK_CANDIDATES:
                ids = None  # the bound was too tight: these are not the newest matches of all
        if ids is None:
            ids, complete = _newest_ids(queryset.order_by(*collect), limit), True
    count = None
    if len(ids) > COUNT_CAP:
        count = (COUNT_CAP, True)
    elif complete and len(ids) < limit:
        count = (len(ids), False)  # every match was read
    # One array parameter, not a thousand: Django and psycopg handle each
    # parameter of an IN list in Python.
    chosen = Paper.objects.filter(id__in=RawSQL("SELECT unnest(%s::bigint[])", (ids[:RANK_CANDIDATES],)))
    # The candidates meet every filter already; matching them again would
    # read each search vector twice.
    return chosen.annotate(search_rank=queryset.query.annotations["search_rank"]), count


def _newest_ids(ordered: QuerySet[Paper], limit: int) -> list[int]:
    return list(ordered.values_list("id", flat=True)[:limit])


def _updated_at_depth(depth: int) -> datetime | None:
    """The update time of the paper about `depth` places down the update-time
    order, or None when the library is not that deep.

    Walking the index to it costs several milliseconds at the depths a ranked
    search asks for, so the answer is kept for BOUND_CACHE_SECONDS, for depths rounded up
    to steps of a fifth. An older bound is still a correct one: papers stored
    or revised since then only add papers above it, so it keeps at least
    `depth` papers (the search finds its RANK_CANDIDATES newest matches among
    them, or falls back to every match)."""
    step = math.ceil(math.log(max(depth, 1), BOUND_DEPTH_STEP))
    depth = math.ceil(BOUND_DEPTH_STEP**step)
    key = f"portal:updated-at-depth:v1:{depth}"
    cached = cache.get(key)
    if cached is not None:
        return cached or None
    bound = (
        sorted_papers(Paper.objects.filter(updated__isnull=False), SORT_UPDATED)
        .values_list("updated", flat=True)[depth : depth + 1]
        .first()
    )
    cache.set(key, bound or "", BOUND_CACHE_SECONDS)
    return bound


def _planned_rows(queryset: QuerySet[Paper]) -> int:
    try:
        sql, params = queryset.order_by().values("id").query.sql_with_params()
    except EmptyResultSet:  # a search that found nothing (an empty candidate list)
        return 0
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return int(plan[0]["Plan"]["Plan Rows"])


def _library_size() -> int:
    return overview_stats_cached().totals.papers


def bounded_count(queryset: QuerySet[Paper], cap: int | None = None) -> tuple[int, bool]:
    """(count, capped): counts at most `cap` (default COUNT_CAP) + 1 rows, never the whole table."""
    cap = COUNT_CAP if cap is None else cap
    count = queryset.order_by().values("id")[: cap + 1].count()
    return (cap, True) if count > cap else (count, False)
