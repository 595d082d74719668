"""A batch of new versions matched once per follow definition: every distinct
(kind, compiled) of an unmuted follow or an exclusion is evaluated against
the batch's index and its matches stored as DefinitionMatch rows, whoever
follows it. Each reader's trail is composed from these rows when it is read
(accounts.trail.composition), so a harvest's cost grows with the definitions,
not with how many readers follow each (docs/decisions.md, "Matched once per
definition").
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from accounts.follows.selectors import definition_hits, follow_definitions
from accounts.follows.types import DayIndex
from accounts.trail.lock import lock_trail
from accounts.trail.models import DefinitionMatch

# Kept this long: the trail shows the matches of the last month.
RETENTION_DAYS = 30
_WRITE_BUFFER = 5000
_SPOOL_BYTES = 32 * 2**20
_COPY_BLOCK = 2**20


def newest_match_id() -> int:
    return DefinitionMatch.objects.order_by("-id").values_list("id", flat=True).first() or 0


def _rows(index: DayIndex, definitions: list[tuple[int, str, Mapping[str, Any]]]) -> Iterator[tuple]:
    for key, paper, primary, reason in definition_hits(index, definitions):
        yield key, paper.paper_id, paper.version_id, paper.version_number, paper.kind, paper.event_at, primary, reason


def record_definition_matches(index: DayIndex, *, topics: bool = False) -> int:
    """Evaluate every follow definition (or, `topics`, every topic's) against
    the batch and store its matches, in one transaction under the trail
    writers' lock (so a follow that begins meanwhile either is among the
    definitions or starts after these matches: Follow.matched_after).
    The definitions are read first (the connection cannot read while in
    COPY); the matches are streamed, never held."""
    written = 0
    with transaction.atomic():
        lock_trail()
        now = timezone.now()
        definitions = list(follow_definitions(topics=topics))
        if connection.vendor == "postgresql":
            return _copy(_rows(index, definitions), now)
        batch: list[DefinitionMatch] = []
        for key, paper, version, number, kind, at, primary, reason in _rows(index, definitions):
            batch.append(
                DefinitionMatch(
                    definition=key,
                    paper_id=paper,
                    version_id=version,
                    version_number=number,
                    kind=kind,
                    event_at=at,
                    is_primary=primary,
                    reason=reason,
                    created_at=now,
                )
            )
            if len(batch) >= _WRITE_BUFFER:
                written += len(DefinitionMatch.objects.bulk_create(batch))
                batch.clear()
        written += len(DefinitionMatch.objects.bulk_create(batch))
    return written


def _copy(rows: Iterator[tuple], now) -> int:
    """COPY the rows, spooled first (to disk past a few MB): evaluating a
    saved view's filters reads the database, which the connection cannot do
    while in COPY."""
    written = 0
    stamp = now.isoformat()
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES) as spool:
        lines: list[str] = []
        for key, paper, version, number, kind, at, primary, reason in rows:
            reason_text = copy_text(json.dumps(reason, ensure_ascii=False))
            lines.append(
                f"{key}\t{paper}\t{version}\t{number}\t{kind}\t{at.isoformat()}\t{'t' if primary else 'f'}"
                f"\t{reason_text}\t{stamp}\n"
            )
            written += 1
            if len(lines) >= _WRITE_BUFFER:
                spool.write("".join(lines).encode())
                lines.clear()
        spool.write("".join(lines).encode())
        spool.seek(0)
        columns = "definition, paper_id, version_id, version_number, kind, event_at, is_primary, reason, created_at"
        statement = f"COPY accounts_definitionmatch ({columns}) FROM STDIN"
        with connection.cursor() as cursor, cursor.copy(statement) as copy:
            while block := spool.read(_COPY_BLOCK):
                copy.write(block)
    return written


def copy_text(value: Any) -> str:
    """A value as a field of COPY's text format."""
    if value is None:
        return "\\N"
    text = value if isinstance(value, str) else str(value)
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        text = text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return text


def prune_definition_matches(*, days: int = RETENTION_DAYS) -> int:
    """Drop the matches older than the retention, a batch of ids at a time.
    Matches are written in id order under the writers' lock, so those older
    than the cutoff are the ids below the first one recorded after it, found
    by bisection on the primary key: the table keeps no index on its time,
    one index fewer for every day's 2.5 M rows to maintain."""
    cutoff = timezone.now() - timedelta(days=days)
    ids = DefinitionMatch.objects.order_by("id").values_list("id", "created_at")
    low, high = 0, (DefinitionMatch.objects.order_by("-id").values_list("id", flat=True).first() or 0) + 1
    while low < high:
        middle = (low + high) // 2
        found = ids.filter(id__gte=middle).first()
        if found is None or found[1] >= cutoff:
            high = middle
        else:
            low = found[0] + 1
    deleted = 0
    start = DefinitionMatch.objects.order_by("id").values_list("id", flat=True).first() or low
    while start < low:
        deleted += DefinitionMatch.objects.filter(id__gte=start, id__lt=min(start + 10000, low)).delete()[0]
        start += 10000
    return deleted
