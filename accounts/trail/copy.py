"""The trail's write path on PostgreSQL: a batch's hits are streamed by COPY
into temporary tables and merged into the cards and their matches by a few
set-based statements, under the same card rules as the ORM path in
accounts.trail.writers (tests/accounts/trail/test_writers.py holds them equal).

One transaction per chunk of users, as the ORM path: the hits are never held
in Python (each is written to the COPY as it comes), so memory stays flat
however many users a day reaches.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from django.db import connection, transaction

from accounts.follows.matching import Hit
from accounts.trail.lock import TrailWriteResult, lock_trail

# Users per transaction: large enough that the statements' fixed cost is paid
# rarely, small enough that a chunk's sorts, hashes and index pages stay in
# memory (measured: 100 users a chunk wrote a reader a third faster than 1,000).
COPY_USER_CHUNK = 250
_WRITE_BUFFER = 2000  # COPY lines handed to psycopg at a time
_SPOOL_BYTES = 32 * 2**20  # a chunk's COPY lines kept in memory up to this, then on disk
_COPY_BLOCK = 2**20
_REASON_CACHE = 100_000  # bounded for callers whose hits do not share reasons

_TEMPORARY = """
CREATE TEMPORARY TABLE trail_hits (
    user_id bigint NOT NULL, follow_id bigint NOT NULL, paper_id bigint NOT NULL, reason jsonb NOT NULL
) ON COMMIT DROP;
CREATE TEMPORARY TABLE trail_events (
    paper_id bigint PRIMARY KEY, version_id bigint NOT NULL, version_number integer NOT NULL,
    kind varchar(16) NOT NULL, event_at timestamptz NOT NULL
) ON COMMIT DROP;
"""

# Each card of the chunk, its paper's event, the card as stored (if any) and
# what the rules do with it: create, join (unread, nothing newer), update
# (unread, newer version), reopen (read, newer version), keep (read, nothing
# newer: the reason is added, still read) or skip (dismissed).
_CARDS = """
CREATE TEMPORARY TABLE trail_cards ON COMMIT DROP AS
SELECT c.user_id, c.paper_id, e.version_id, e.version_number, e.kind, e.event_at,
       coalesce(i.id, nextval(%(sequence)s)) AS item_id,
       CASE WHEN i.id IS NULL THEN 'create'
            WHEN i.dismissed THEN 'skip'
            WHEN e.version_number > i.latest_version_number THEN CASE WHEN i.unread THEN 'update' ELSE 'reopen' END
            WHEN i.unread THEN 'join'
            ELSE 'keep' END AS action,
       CASE WHEN i.id IS NULL THEN e.event_at
            WHEN e.version_number > i.latest_version_number THEN greatest(i.latest_event_at, e.event_at)
            ELSE i.latest_event_at END AS card_event_at
FROM (SELECT DISTINCT user_id, paper_id FROM trail_hits) c
JOIN trail_events e ON e.paper_id = c.paper_id
LEFT JOIN accounts_trailitem i ON i.user_id = c.user_id AND i.paper_id = c.paper_id
ORDER BY c.user_id, c.paper_id
"""

# Rows go in in the order of the indexes they land in (user, then follow,
# which are numbered in user order; card ids are drawn in user order above),
# so that each index is written a few pages at a time instead of at random.
_MERGE = (
    """
    INSERT INTO accounts_trailitem (id, user_id, paper_id, latest_version_id, latest_version_number,
        latest_event_at, kind, unread, dismissed, created_at)
    SELECT item_id, user_id, paper_id, version_id, version_number, event_at, kind, true, false, now()
    FROM trail_cards WHERE action = 'create' ORDER BY item_id
    """,
    # A reopened card shows why it came back, not why it came before.
    """
    DELETE FROM accounts_trailmatch m USING trail_cards c WHERE m.item_id = c.item_id AND c.action = 'reopen'
    """,
    """
    UPDATE accounts_trailitem i
    SET latest_version_id = c.version_id, latest_version_number = c.version_number,
        latest_event_at = c.card_event_at, unread = true,
        kind = CASE WHEN c.action = 'reopen' THEN c.kind ELSE i.kind END
    FROM trail_cards c WHERE i.id = c.item_id AND c.action IN ('update', 'reopen')
    """,
    # The matches carry the card's event time and unread state; on a read card
    # kept read a reason already there stays as it was.
    """
    INSERT INTO accounts_trailmatch (item_id, follow_id, user_id, version_id, version_number, kind, reason,
        event_at, unread, created_at)
    SELECT c.item_id, h.follow_id, h.user_id, c.version_id, c.version_number, c.kind, h.reason,
           c.card_event_at, c.action <> 'keep', now()
    FROM trail_hits h JOIN trail_cards c ON c.user_id = h.user_id AND c.paper_id = h.paper_id
    WHERE c.action <> 'skip'
    ORDER BY h.follow_id, c.item_id
    ON CONFLICT (item_id, follow_id) DO UPDATE
    SET version_id = EXCLUDED.version_id, version_number = EXCLUDED.version_number, kind = EXCLUDED.kind,
        reason = EXCLUDED.reason, event_at = EXCLUDED.event_at, unread = EXCLUDED.unread
    WHERE EXCLUDED.unread
    """,
    # The other reasons of a card that moved follow its new time and state.
    """
    UPDATE accounts_trailmatch m SET event_at = c.card_event_at, unread = true
    FROM trail_cards c
    WHERE m.item_id = c.item_id AND c.action = 'update' AND (m.event_at <> c.card_event_at OR NOT m.unread)
    """,
)

_MERGE_STEPS = ("insert cards", "reopen", "update cards", "upsert matches", "sync matches")
# Seconds per step since the process started (the matching and the COPY
# included in "copy"), read by the follows bench.
STEP_SECONDS: dict[str, float] = {}


def _step(name: str, mark: float) -> float:
    now = time.perf_counter()
    STEP_SECONDS[name] = STEP_SECONDS.get(name, 0.0) + now - mark
    return now


_COUNTS = "SELECT action, count(*) FROM trail_cards GROUP BY action"


def copy_text(value: Any) -> str:
    """A value as a field of COPY's text format."""
    if value is None:
        return "\\N"
    text = value if isinstance(value, str) else str(value)
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        text = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return text


class _ReasonText:
    """JSON of each reason once: hits of one follow definition and paper share
    their reason dict (accounts.matching), kept alive here with its text."""

    def __init__(self) -> None:
        self._texts: dict[int, tuple[dict, str]] = {}

    def __call__(self, reason: dict) -> str:
        found = self._texts.get(id(reason))
        if found is None or found[0] is not reason:
            if len(self._texts) >= _REASON_CACHE:
                self._texts.clear()
            found = self._texts[id(reason)] = (reason, copy_text(json.dumps(reason, ensure_ascii=False)))
        return found[1]


def write_hits_copy(hits: Iterable[Hit], *, user_chunk: int = COPY_USER_CHUNK, shared: bool = False) -> Any:
    """Record hits (grouped by user, as match_follows yields them) into the
    trail: COPY per chunk of users, then the merge. Every hit of one paper
    carries that paper's one event of the batch (as match_follows yields
    them); a paper seen with two events is an error."""
    result = TrailWriteResult()
    stream = iter(hits)
    reasons = _ReasonText()
    events: dict[int, tuple[int, int, str, Any]] = {}
    sequence = _item_sequence()
    while (first := next(stream, None)) is not None:
        with transaction.atomic():
            lock_trail(shared=shared)
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL work_mem = '64MB'")
                cursor.execute(_TEMPORARY)
                mark = time.perf_counter()
                chunk_papers: set[int] = set()
                copied = _copy_chunk(cursor, chain([first], stream), user_chunk, reasons, events, chunk_papers)
                stream = chain(copied.rest, stream) if copied.rest is not None else stream
                result.hits += copied.hits
                _copy_events(cursor, {paper: events[paper] for paper in chunk_papers})
                mark = _step("copy", mark)
                cursor.execute("ANALYZE trail_hits; ANALYZE trail_events")
                cursor.execute(_CARDS, {"sequence": sequence})
                cursor.execute("ANALYZE trail_cards")
                mark = _step("cards", mark)
                for name, statement in zip(_MERGE_STEPS, _MERGE, strict=True):
                    cursor.execute(statement)
                    mark = _step(name, mark)
                cursor.execute(_COUNTS)
                counts = dict(cursor.fetchall())
                cursor.execute("DROP TABLE trail_hits, trail_events, trail_cards")
        result.created += counts.get("create", 0)
        result.updated += counts.get("update", 0)
        result.reopened += counts.get("reopen", 0)
        result.skipped += counts.get("skip", 0) + counts.get("keep", 0)
    return result


class _Copied:
    def __init__(self) -> None:
        self.hits = 0
        self.rest: Iterator[Hit] | None = None  # the first hit of the next chunk


def _copy_chunk(cursor, hits: Iterator[Hit], user_chunk: int, reasons, events, chunk_papers) -> _Copied:
    """The chunk's hits as COPY lines, spooled first (to disk past a few MB):
    the stream may read the database (follows come a page at a time), which
    it cannot while the connection is in COPY."""
    copied = _Copied()
    users: set[int] = set()
    lines: list[str] = []
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES) as spool:
        for hit in hits:
            if hit.user_id not in users:
                if len(users) >= user_chunk:
                    copied.rest = iter([hit])
                    break
                users.add(hit.user_id)
            event = (hit.version_id, hit.version_number, hit.kind, hit.event_at)
            known = events.setdefault(hit.paper_id, event)
            if known != event:
                raise ValueError(f"paper {hit.paper_id} has two events in one batch")
            chunk_papers.add(hit.paper_id)
            lines.append(f"{hit.user_id}\t{hit.follow_id}\t{hit.paper_id}\t{reasons(hit.reason)}\n")
            copied.hits += 1
            if len(lines) >= _WRITE_BUFFER:
                spool.write("".join(lines).encode())
                lines.clear()
        spool.write("".join(lines).encode())
        spool.seek(0)
        with cursor.copy("COPY trail_hits (user_id, follow_id, paper_id, reason) FROM STDIN") as copy:
            while block := spool.read(_COPY_BLOCK):
                copy.write(block)
    return copied


def _copy_events(cursor, events: dict[int, tuple[int, int, str, Any]]) -> None:
    with cursor.copy("COPY trail_events (paper_id, version_id, version_number, kind, event_at) FROM STDIN") as copy:
        for paper_id, (version_id, number, kind, at) in events.items():
            copy.write_row((paper_id, version_id, number, kind, at))


def _item_sequence() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence('accounts_trailitem', 'id')")
        return cursor.fetchone()[0]
