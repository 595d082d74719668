"""A reader's admitted matches as SQL (PostgreSQL): the follows they have,
each follow's definition, start and switches as a VALUES list, joined to the
definitions' matches, with their own matches beside them. What
accounts.trail.composition applies in Python, the database applies here,
for the counts and the order of a page (accounts.trail.counts)."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import connection

from accounts.trail.readers import Reader

# The reader's follows as rows, and the papers each follow's "not this person" took out.
_FOLLOWS = (
    "WITH f (follow_id, definition, after, cross_lists, revisions) AS ({follows}),\n"
    "rejected (follow_id, paper_id) AS ({rejected})"
)
_EMPTY_FOLLOWS = "SELECT NULL::bigint, NULL::bigint, NULL::bigint, NULL::boolean, NULL::boolean WHERE false"
_EMPTY_REJECTED = "SELECT NULL::bigint, NULL::bigint WHERE false"

# The reader's admitted matches under a condition on d (definitions') and o (their own).
MATCHES = """
    SELECT f.follow_id, d.paper_id, d.version_number AS number, d.event_at, d.created_at
    FROM f JOIN accounts_definitionmatch d ON d.definition = f.definition AND d.id > f.after
    WHERE (f.cross_lists OR d.is_primary) AND (f.revisions OR d.kind = 'new')
      AND NOT EXISTS (SELECT 1 FROM rejected r WHERE r.follow_id = f.follow_id AND r.paper_id = d.paper_id)
      AND {definitions}
    UNION ALL
    SELECT o.follow_id, o.paper_id, o.version_number, o.event_at, o.created_at
    FROM accounts_readermatch o
    WHERE {owner} AND (o.follow_id IS NULL OR o.follow_id = ANY(%(live)s)) AND {own}
"""


def owner_sql(reader: Reader) -> str:
    """Which of accounts_readermatch's rows (alias o) are the reader's own: a
    user's, or on a group's trail the back-fills of its follows (no user)."""
    return "o.user_id IS NULL" if reader.group_id is not None else "o.user_id = %(user)s"


def reader_prelude(reader: Reader) -> tuple[str, dict]:
    """The WITH clause's first two tables (the reader's follows and their
    rejections) and the parameters every statement shares."""
    params: dict = {
        "user": reader.user_id,
        "group": reader.group_id,
        "live": sorted(reader.follow_ids),
        "exclusions": sorted(reader.exclusions),
        "marked_at": reader.mark.marked_at if reader.mark else None,
        "up_to": reader.mark.up_to if reader.mark else None,
        "up_to_paper": reader.mark.up_to_paper if reader.mark else None,
    }
    rows, rejected = [], []
    for key, group in reader.follows.items():
        for follow in group:
            n = len(rows)
            rows.append(f"(%(f{n})s::bigint, %(k{n})s::bigint, %(a{n})s::bigint, %(c{n})s::boolean, %(r{n})s::boolean)")
            params |= {
                f"f{n}": follow.id,
                f"k{n}": key,
                f"a{n}": follow.after,
                f"c{n}": follow.rules.include_cross_lists,
                f"r{n}": follow.rules.include_revisions,
            }
            rejected += [(follow.id, paper_id) for paper_id in sorted(follow.rules.rejected)]
    rejected_rows = []
    for n, (rejecting, paper_id) in enumerate(rejected):
        rejected_rows.append(f"(%(rf{n})s::bigint, %(rp{n})s::bigint)")
        params |= {f"rf{n}": rejecting, f"rp{n}": paper_id}
    prelude = _FOLLOWS.format(
        follows=f"VALUES {', '.join(rows)}" if rows else _EMPTY_FOLLOWS,
        rejected=f"VALUES {', '.join(rejected_rows)}" if rejected_rows else _EMPTY_REJECTED,
    )
    return prelude, params


_ORDER = """
{prelude},
win AS ({window})
SELECT w.paper_id, max(w.event_at) AS at
FROM win w
WHERE {candidates} {not_above}
GROUP BY w.paper_id
HAVING max(w.event_at) < %(before_at)s OR (max(w.event_at) = %(before_at)s AND w.paper_id < %(before_paper)s)
ORDER BY at DESC, w.paper_id DESC
LIMIT %(limit)s OFFSET %(offset)s
"""
_DISTANT_PAST = datetime(1970, 1, 1, tzinfo=UTC)
_DISTANT_FUTURE = datetime(9999, 1, 1, tzinfo=UTC)


def _in_window(table: str) -> str:
    return f"{table}.event_at >= %(lo)s AND {table}.event_at < %(hi)s"


def papers_in_order(
    reader: Reader,
    *,
    lo: datetime | None,
    hi: datetime | None,
    before: tuple[datetime, int] | None,
    follow_id: int | None,
    fresh: bool,
    limit: int,
    offset: int,
) -> list[int]:
    """The papers whose card is placed in [lo, hi) and before `before`, by
    their newest admitted match (event time, then paper), newest first: among
    those with a match in the window (of `follow_id`, when given; one the
    reader's mark does not cover, when `fresh`). A page's candidates, a slice
    at a time: the caller composes them and applies the card rules."""
    prelude, params = reader_prelude(reader)
    fresh = fresh and reader.mark is not None
    owner = owner_sql(reader)
    window = MATCHES.format(definitions=_in_window("d"), own=_in_window("o"), owner=owner)
    # A card's place is its newest match's: a paper with a match at or after
    # `hi` is placed above the window, whatever it has in it.
    not_above = ""
    if hi is not None:
        above = MATCHES.format(definitions="d.event_at >= %(hi)s", own="o.event_at >= %(hi)s", owner=owner)
        not_above = f"AND w.paper_id NOT IN (SELECT a.paper_id FROM ({above}) a)"  # noqa: S608 - fixed fragments
    chosen = []
    if follow_id is not None:
        chosen.append("c.follow_id = %(follow)s")
    if fresh:
        chosen.append("(c.event_at >= %(up_to)s OR c.created_at > %(marked_at)s)")
    only = " AND ".join(chosen)
    candidates = f"w.paper_id IN (SELECT c.paper_id FROM win c WHERE {only})" if chosen else "TRUE"  # noqa: S608
    params |= {
        "lo": lo or _DISTANT_PAST,
        "hi": hi or _DISTANT_FUTURE,
        "before_at": before[0] if before else _DISTANT_FUTURE,
        "before_paper": before[1] if before else 0,
        "follow": follow_id,
        "limit": limit,
        "offset": offset,
    }
    statement = _ORDER.format(prelude=prelude, window=window, candidates=candidates, not_above=not_above)
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return [paper_id for paper_id, _ in cursor.fetchall()]
