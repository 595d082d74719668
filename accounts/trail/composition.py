"""A reader's trail, composed when it is read: the matches of the definitions
they follow (each follow's since it began, under its own rules) and their own
matches (back-fills, saved papers' revisions), grouped into one card per
paper, less what exclusions and dismissals take out, read or unread by the
reader's marks. Nothing here writes.

Card rules: a card shows its paper at the newest version any of the reader's
matches reached, placed at that version's time. It is unread while that
version is newer than the one the reader read (explicitly, or under their
"read up to here" mark as the card stood when they marked), so a read card
reopens only for a newer version and otherwise only gains the reason. An
unread card gives the follows that matched what the reader has not read; a
read one every follow that matched it. A dismissed card stays out, with its
revisions, until undone.

Which cards a page, a window or a run of channels holds is windows.py's."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from django.db import connection
from django.utils import timezone

from accounts.follows.types import NEW, REVISION
from accounts.trail.models import DefinitionMatch, GroupTrailState, ReaderMatch, TrailReadMark, TrailState
from accounts.trail.readers import Reader

LAST_PAPER = 2**63 - 1


class Match(NamedTuple):
    """One of the reader's matches: a definition's (source "d") or their own
    ("r"). A tuple: a read makes thousands."""

    follow_id: int | None
    paper_id: int
    version_id: int
    number: int
    kind: str
    event_us: int  # microseconds since the epoch: thousands a read, compared, rarely shown
    recorded_us: int
    source: str
    source_id: int


@dataclass
class Card:
    paper_id: int
    version_id: int
    version_number: int
    event_at: datetime
    kind: str
    unread: bool
    dismissed: bool
    reasons: list[Match] = field(default_factory=list)  # one per follow (None: the research record)

    @property
    def place(self) -> tuple[datetime, int]:
        return (self.event_at, self.paper_id)

    @property
    def follow_ids(self) -> set[int]:
        return {match.follow_id for match in self.reasons if match.follow_id is not None}


@dataclass(frozen=True)
class Where:
    """Which matches to read: a window of event times, these papers only, and
    (`fresh`) only those that can make a card unread past the reader's mark.
    One SQL condition, the same for both tables."""

    lo: datetime | None = None
    hi: datetime | None = None
    papers: tuple[int, ...] | None = None
    fresh: TrailReadMark | None = None

    def sql(self) -> tuple[str, list]:
        parts, params = [], []
        if self.lo is not None:
            parts.append("event_at >= %s")
            params.append(self.lo)
        if self.hi is not None:
            parts.append("event_at < %s")
            params.append(self.hi)
        if self.papers is not None:
            parts.append(f"paper_id IN ({', '.join(['%s'] * len(self.papers))})")
            params += self.papers
        if self.fresh is not None:
            parts.append("(event_at >= %s OR created_at > %s)")
            params += [self.fresh.up_to, self.fresh.marked_at]
        return " AND ".join(parts) or "1 = 1", params


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(value: datetime) -> int:
    return (value - EPOCH) // timedelta(microseconds=1)


def match_columns() -> str:
    """The match columns, times as integer microseconds on PostgreSQL: a
    thousand timestamps parsed by the driver cost more than the query."""
    if connection.vendor == "postgresql":
        times = "(EXTRACT(EPOCH FROM event_at) * 1000000)::bigint, (EXTRACT(EPOCH FROM created_at) * 1000000)::bigint"
    else:
        times = "event_at, created_at"
    return f"paper_id, version_id, version_number, kind, {times}"


def _as_micros(value: int | str | datetime) -> int:
    """SQLite's cursor hands back text."""
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return micros(value if timezone.is_aware(value) else timezone.make_aware(value, UTC))


def read_matches(reader: Reader, keys: Iterable[int], where: Where, *, follow_id: int | None = None) -> list[Match]:
    """The reader's matches among the definition matches of `keys` and their
    own matches, under `where`, each follow's rules applied: one query."""
    keys = list(keys)
    condition, params = where.sql()
    parts, arguments = [], []
    if keys:
        if where.papers is not None and connection.vendor == "postgresql":
            # Each (paper, definition) pair probed in the (paper, definition) index: a paper
            # of a busy day is matched by thousands of definitions, the reader's by a few.
            pairs = "(paper_id, definition) IN (SELECT p, d FROM unnest(%s::bigint[]) p, unnest(%s::bigint[]) d)"
            parts.append(
                f"SELECT 'd', id, definition, is_primary, {match_columns()} FROM accounts_definitionmatch "  # noqa: S608
                f"WHERE {pairs} AND {condition}"
            )
            arguments += [list(where.papers), keys, *params]
        else:
            parts.append(
                f"SELECT 'd', id, definition, is_primary, {match_columns()} FROM accounts_definitionmatch "  # noqa: S608
                f"WHERE definition IN ({', '.join(['%s'] * len(keys))}) AND {condition}"
            )
            arguments += [*keys, *params]
    own, own_params = reader.own_matches_sql("accounts_readermatch")
    own += " AND follow_id = %s" if follow_id is not None else ""
    parts.append(
        f"SELECT 'r', id, follow_id, TRUE, {match_columns()} FROM accounts_readermatch "  # noqa: S608
        f"WHERE {own} AND {condition}"
    )
    arguments += [*own_params, *([follow_id] if follow_id is not None else []), *params]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), arguments)
        return reader_matches(reader, cursor.fetchall(), follow_id=follow_id)


def reader_matches(reader: Reader, rows: Iterable[tuple], *, follow_id: int | None = None) -> list[Match]:
    """The reader's matches among these rows (source, id, definition or
    follow, primary, then the match columns), each follow's rules applied."""
    live = reader.follow_ids
    found: list[Match] = []
    for source, row_id, owner, primary, paper_id, version_id, number, kind, at, recorded in rows:
        at, recorded = _as_micros(at), _as_micros(recorded)
        if source == "r":
            if owner is None or owner in live:
                found.append(Match(owner, paper_id, version_id, number, kind, at, recorded, "r", row_id))
            continue
        for follow in reader.follows.get(owner, ()):
            if follow_id is not None and follow.id != follow_id:
                continue
            if row_id > follow.after and follow.rules.admits(paper_id=paper_id, event_kind=kind, primary=bool(primary)):
                found.append(Match(follow.id, paper_id, version_id, number, kind, at, recorded, "d", row_id))
    return found


def compose_papers(reader: Reader, paper_ids: Iterable[int], *, known: list[Match] | None = None) -> dict[int, Card]:
    """The cards of these papers (those the reader has): every match of each
    read (or, `known`, those already read plus the rest)."""
    papers = sorted({paper_id for paper_id in paper_ids if 0 < paper_id <= LAST_PAPER})  # no paper has another id
    if not papers:
        return {}
    matches = known if known is not None else read_matches(reader, reader.follows, Where(papers=tuple(papers)))
    excluded: set[int] = set()
    if reader.exclusions:
        excluded = set(
            DefinitionMatch.objects.filter(paper_id__in=papers, definition__in=list(reader.exclusions)).values_list(
                "paper_id", flat=True
            )
        )
    states = {state.paper_id: state for state in reader.states().filter(paper_id__in=papers)}
    return cards_of(reader, matches, excluded=excluded, states=states)


def cards_of(
    reader: Reader,
    matches: Iterable[Match],
    *,
    excluded: set[int],
    states: dict[int, TrailState | GroupTrailState],
) -> dict[int, Card]:
    """The cards these matches make, less the excluded papers, under the reader's card states."""
    by_paper: dict[int, list[Match]] = defaultdict(list)
    for match in matches:
        if match.paper_id not in excluded:
            by_paper[match.paper_id].append(match)
    cards = {}
    for paper_id, paper_matches in by_paper.items():
        card = _card(reader, paper_id, paper_matches, states.get(paper_id))
        if card is not None:
            cards[paper_id] = card
    return cards


def _card(
    reader: Reader, paper_id: int, matches: list[Match], state: TrailState | GroupTrailState | None
) -> Card | None:
    if state is not None and state.excluded:
        return None
    if state is not None and state.dismissed_at is not None and (state.dismissed or state.undismissed_at):
        # A dismissed card takes nothing new, and what came while it was dismissed stays out once undone.
        since = micros(state.dismissed_at)
        until = None if state.dismissed else micros(state.undismissed_at)
        matches = [m for m in matches if m.recorded_us <= since or (until is not None and m.recorded_us > until)]
        if not matches:
            return None
    latest = max(matches, key=lambda m: (m.number, m.event_us))
    seen = state.read_version if state is not None else 0
    mark = reader.mark
    if mark is not None and seen < latest.number:
        marked_at = micros(mark.marked_at)
        marked = [m for m in matches if m.recorded_us <= marked_at]
        if marked:
            then = max(marked, key=lambda m: (m.number, m.event_us))
            if (then.event_us, paper_id) <= (micros(mark.up_to), mark.up_to_paper):
                seen = max(seen, then.number)
    dismissed = state is not None and state.dismissed
    unread = not dismissed and latest.number > seen
    shown = [m for m in matches if m.number > seen] if unread else matches
    reasons: dict[int | None, Match] = {}
    for match in shown:
        known = reasons.get(match.follow_id)
        if known is None or (match.number, match.event_us) > (known.number, known.event_us):
            reasons[match.follow_id] = match
    return Card(
        paper_id=paper_id,
        version_id=latest.version_id,
        version_number=latest.number,
        event_at=EPOCH + timedelta(microseconds=latest.event_us),
        kind=NEW if any(m.kind == NEW for m in shown) else REVISION,
        unread=unread,
        dismissed=dismissed,
        reasons=sorted(reasons.values(), key=lambda m: (m.follow_id is None, m.follow_id or 0)),
    )


@dataclass(frozen=True)
class CardFilter:
    follow_id: int | None = None
    kind: str | None = None
    unread_only: bool = False
    dismissed: bool = False  # also the dismissed cards (the export, the admin)

    def admits(self, card: Card) -> bool:
        if card.dismissed and not self.dismissed:
            return False
        if self.unread_only and not card.unread:
            return False
        if self.kind and card.kind != self.kind:
            return False
        return self.follow_id is None or self.follow_id in card.follow_ids


def follow_reason_rows(cards: list[Card]) -> dict[tuple[str, int], dict]:
    """The stored reason of each match these cards show."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for card in cards:
        for match in card.reasons:
            wanted[match.source].add(match.source_id)
    found: dict[tuple[str, int], dict] = {}
    for source, model in (("d", DefinitionMatch), ("r", ReaderMatch)):
        if wanted[source]:
            for row_id, reason in model.objects.filter(id__in=sorted(wanted[source])).values_list("id", "reason"):
                found[(source, row_id)] = reason
    return found
