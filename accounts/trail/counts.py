"""A reader's unread counts in one statement on PostgreSQL: the same card
rules as accounts.trail.composition, aggregated by the database, so that the
navigation's number on every page costs one query over the reader's
matches instead of composing every card in Python (at one announcement day
of ten category follows, about 1,900 cards: 5 ms against 50).
tests/accounts/trail/test_counts.py holds the two equal."""

from __future__ import annotations

from django.db import connection

from accounts.trail.reader_sql import MATCHES, owner_sql, reader_prelude
from accounts.trail.readers import Reader

_UNREAD = """
{prelude},
m AS ({matches}),
kept AS (
    SELECT m.*, coalesce(s.read_version, 0) AS read_version, coalesce(s.dismissed, false) AS dismissed
    FROM m LEFT JOIN {states} s ON s.user_id = %(user)s AND s.paper_id = m.paper_id
    WHERE NOT coalesce(s.excluded, false)
      AND NOT (s.dismissed_at IS NOT NULL AND (s.dismissed OR s.undismissed_at IS NOT NULL)
               AND m.created_at > s.dismissed_at AND (s.dismissed OR m.created_at <= s.undismissed_at))
      {excluded}
),
cards AS (
    SELECT paper_id, max(number) AS latest, bool_or(dismissed) AS dismissed, max(read_version) AS read_version,
           max(number) FILTER (WHERE created_at <= %(marked_at)s) AS then_number,
           max(event_at) FILTER (WHERE created_at <= %(marked_at)s) AS then_event
    FROM kept GROUP BY paper_id
),
open_cards AS (
    SELECT paper_id, seen FROM (
        SELECT paper_id, latest, greatest(read_version, CASE
            WHEN then_event IS NOT NULL AND (then_event, paper_id) <= (%(up_to)s, %(up_to_paper)s) THEN then_number
            ELSE 0 END) AS seen
        FROM cards WHERE NOT dismissed
    ) c
    WHERE latest > seen
)
SELECT NULL::bigint, count(*) FROM open_cards
UNION ALL
SELECT k.follow_id, count(DISTINCT k.paper_id)
FROM kept k JOIN open_cards o USING (paper_id)
WHERE k.number > o.seen AND k.follow_id IS NOT NULL
GROUP BY k.follow_id
"""


def unread_counts(reader: Reader) -> tuple[int, dict[int, int]]:
    """(total, per follow) of the reader's unread cards: PostgreSQL only."""
    prelude, params = reader_prelude(reader)
    # Papers an exclusion matched are out: a probe a match, asked only of readers with exclusions.
    excluded = (
        "AND NOT EXISTS (SELECT 1 FROM accounts_definitionmatch x "
        "WHERE x.paper_id = m.paper_id AND x.definition = ANY(%(exclusions)s))"
        if reader.exclusions
        else ""
    )
    # A member's marks on a group's trail are the group's table's, under the group.
    states = (
        "accounts_trailstate"
        if reader.group_id is None
        else "(SELECT * FROM accounts_grouptrailstate WHERE group_id = %(group)s)"
    )
    statement = _UNREAD.format(
        states=states,
        prelude=prelude,
        matches=MATCHES.format(definitions="TRUE", own="TRUE", owner=owner_sql(reader)),
        excluded=excluded,
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        found = cursor.fetchall()
    total = next((count for follow_id, count in found if follow_id is None), 0)
    return total, {follow_id: count for follow_id, count in found if follow_id is not None}
