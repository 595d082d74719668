"""The trail a window of event times at a time, its cards by composition.py's
rules. One reader's: a window's cards (`window_cards`), a page (`cards_page`)
composed a window at a time, newest first, widening until it is full, so its
cost is that of the cards it looks at, not of the trail (docs/decisions.md,
"The trail composed when read"), and every card (`all_cards`). Many readers'
at once, as a run of chat channels reads them (`windows_cards`): for each ask
(a reader, a window, maybe one follow) the cards window_cards gives it, in a
fixed number of queries for the lot. Each definition's matches are read once
for every reader who follows it (200 channels following cs.LG read cs.LG's
day once, not 200 times), then each reader's cards are composed in Python by
the same rules (reader_matches, cards_of, placed)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from accounts.trail.composition import (
    Card,
    CardFilter,
    Match,
    Where,
    cards_of,
    compose_papers,
    match_columns,
    read_matches,
    reader_matches,
)
from accounts.trail.models import DefinitionMatch, GroupTrailState, TrailState
from accounts.trail.reader_sql import papers_in_order
from accounts.trail.readers import Reader, readers_of

# A page reads the last two days first (a busy reader's day fills it), then the
# rest of the trail at once (a quiet reader's whole month is small).
FIRST_WINDOW = timedelta(days=2)


def window_cards(reader: Reader, lo: datetime | None, hi: datetime | None, where: CardFilter) -> list[Card]:
    """The cards placed in [lo, hi) under the filter, newest first."""
    return _window_cards(reader, lo, hi, where)[0]


def _window_cards(
    reader: Reader,
    lo: datetime | None,
    hi: datetime | None,
    where: CardFilter,
    *,
    above: set[int] | None = None,
    before: tuple[datetime, int] | None = None,
    size: int | None = None,
) -> tuple[list[Card], set[int]]:
    """window_cards, and the papers with a match in the window. `above`: the
    papers with a match at or after `hi`, when the caller knows them all (its
    own window above this one), so that their cards are not read again.
    `before` and `size`: the first `size` cards placed before `before`, the
    papers composed newest first a chunk at a time (a page of a day's 1,900
    cards composes a few dozen)."""
    keys = reader.keys_of(where.follow_id)
    if where.follow_id is not None and reader.follow(where.follow_id) is None:
        return [], set()
    if size is not None and connection.vendor == "postgresql":
        return _ordered_cards(reader, lo, hi, where, before=before, size=size), set()
    fresh = reader.mark if where.unread_only else None
    found = read_matches(reader, keys, Where(lo=lo, hi=hi, fresh=fresh), follow_id=where.follow_id)
    if above:
        found = [match for match in found if match.paper_id not in above]
    by_paper: dict[int, list[Match]] = defaultdict(list)
    for match in found:
        by_paper[match.paper_id].append(match)
    if not by_paper:
        return [], set()
    # A card's place is its newest match's: the window's papers by their newest match here.
    order = sorted(by_paper, key=lambda paper: (max(m.event_us for m in by_paper[paper]), paper), reverse=True)
    narrowed = _narrowed(reader, where)
    step = max(2 * size, 50) if size is not None and not narrowed else len(order)
    chosen: list[Card] = []
    for start in range(0, len(order), step):
        papers = tuple(sorted(order[start : start + step]))
        if narrowed:
            # The window's matches of one follow, or since the mark, are not the
            # whole card: every match of its paper is read.
            cards = compose_papers(reader, papers)
        else:
            # The window's matches are all of theirs in it; the papers' others are
            # older ones (and, unless `above` says there are none, newer ones).
            older = Where(hi=lo, papers=papers) if lo is not None else None
            newer = Where(lo=hi, papers=papers) if hi is not None and above is None else None
            known = [m for paper in papers for m in by_paper[paper]]
            parts = [part for part in (older, newer) if part is not None]
            known += [m for part in parts for m in read_matches(reader, reader.follows, part)]
            cards = compose_papers(reader, papers, known=known)
        chosen += placed(cards.values(), lo, hi, before, where)
        if size is not None and len(chosen) >= size:
            break
    return chosen, set(by_paper)


def placed(
    cards: Iterable[Card],
    lo: datetime | None,
    hi: datetime | None,
    before: tuple[datetime, int] | None,
    where: CardFilter,
) -> list[Card]:
    """These cards placed in [lo, hi) and before `before`, under the filter, newest first."""
    kept = (
        card
        for card in cards
        if (lo is None or card.event_at >= lo)
        and (hi is None or card.event_at < hi)
        and (before is None or card.place < before)
        and where.admits(card)
    )
    return sorted(kept, key=lambda card: card.place, reverse=True)


def _ordered_cards(
    reader: Reader,
    lo: datetime | None,
    hi: datetime | None,
    where: CardFilter,
    *,
    before: tuple[datetime, int] | None,
    size: int,
) -> list[Card]:
    """A page's cards on PostgreSQL: the database orders the window's papers
    by their cards' places, and only a slice of them at a time is composed."""
    step = max(2 * size, 50)
    chosen: list[Card] = []
    offset = 0
    while len(chosen) < size:
        papers = papers_in_order(
            reader,
            lo=lo,
            hi=hi,
            before=before,
            follow_id=where.follow_id,
            fresh=where.unread_only,
            limit=step,
            offset=offset,
        )
        cards = compose_papers(reader, papers)
        chosen += placed(cards.values(), lo, hi, before, where)
        if len(papers) < step:
            break
        offset += step
    return chosen


def cards_page(
    reader: Reader, where: CardFilter, *, before: tuple[datetime, int] | None = None, size: int = 20
) -> list[Card]:
    """Up to `size` cards placed before `before` (event time, then paper),
    newest first: the last two days before it, then, if that was not enough,
    everything older."""
    hi = before[0] + timedelta(microseconds=1) if before else None
    lo = (hi or timezone.now()) - FIRST_WINDOW
    collected, papers = _window_cards(reader, lo, hi, where, before=before, size=size)
    if len(collected) < size:
        # With the first window open above and read whole, its papers are every
        # paper with a match at or after `lo`.
        above = papers if hi is None and not _narrowed(reader, where) else None
        collected += _window_cards(reader, None, lo, where, above=above, size=size - len(collected))[0]
    return collected[:size]


def _narrowed(reader: Reader, where: CardFilter) -> bool:
    return where.follow_id is not None or (where.unread_only and reader.mark is not None)


def all_cards(reader: Reader, where: CardFilter) -> list[Card]:
    """Every card under the filter, newest first (the counts, the export)."""
    return window_cards(reader, None, None, where)


@dataclass(frozen=True)
class WindowAsk:
    """One reader's window [since, until): a user's trail, or (`group_id`) a
    lab group's as `user_id` reads it, whatever that member dismissed."""

    user_id: int
    group_id: int | None
    since: datetime
    until: datetime
    follow_id: int | None = None

    @property
    def where(self) -> CardFilter:
        return CardFilter(follow_id=self.follow_id, dismissed=self.group_id is not None)


class _Rows:
    """Match rows read for many readers, found again per reader: the
    definitions' by key, the readers' own by user (a group's, by follow)."""

    def __init__(self, rows: Iterable[tuple]) -> None:
        self.definitions: dict[int, list[tuple]] = defaultdict(list)
        self.users: dict[int, list[tuple]] = defaultdict(list)
        self.follows: dict[int, list[tuple]] = defaultdict(list)
        for *row, user_id in rows:
            if row[0] == "d":
                self.definitions[row[2]].append(tuple(row))
            elif user_id is not None:
                self.users[user_id].append(tuple(row))
            else:
                self.follows[row[2]].append(tuple(row))

    def of(self, reader: Reader, follow_id: int | None, papers: set[int] | None = None) -> list[tuple]:
        """The rows `read_matches` reads for this reader (and follow), of these papers."""
        rows = [row for key in reader.keys_of(follow_id) for row in self.definitions.get(key, ())]
        if reader.group_id is None:
            own = self.users.get(reader.user_id, [])
        else:
            own = [row for owner in sorted(reader.follow_ids) for row in self.follows.get(owner, ())]
        rows += [row for row in own if follow_id is None or row[2] == follow_id]
        return rows if papers is None else [row for row in rows if row[4] in papers]


def _in(column: str, values: Iterable[int]) -> tuple[str, list]:
    values = sorted(set(values))
    if not values:
        return "1 = 0", []
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)", [values]
    return f"{column} IN ({', '.join(['%s'] * len(values))})", values


def _read(readers: list[Reader], keys: Iterable[int], where: Where, papers: set[int] | None = None) -> _Rows:
    """The definition matches of `keys` and these readers' own matches under
    `where` (and of these papers): one query."""
    condition, params = where.sql()
    if papers is not None:
        among, among_params = _in("paper_id", papers)
        condition, params = f"{condition} AND {among}", [*params, *among_params]
    definitions, definition_params = _in("definition", keys)
    users, user_params = _in("user_id", [reader.user_id for reader in readers if reader.group_id is None])
    follows, follow_params = _in(
        "follow_id", [owner for reader in readers if reader.group_id is not None for owner in reader.follow_ids]
    )
    sql = (
        f"SELECT 'd', id, definition, is_primary, {match_columns()}, CAST(NULL AS bigint) "  # noqa: S608
        f"FROM accounts_definitionmatch WHERE {definitions} AND {condition} UNION ALL "
        f"SELECT 'r', id, follow_id, TRUE, {match_columns()}, user_id FROM accounts_readermatch "
        f"WHERE ({users} OR (user_id IS NULL AND {follows})) AND {condition}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*definition_params, *params, *user_params, *follow_params, *params])
        return _Rows(cursor.fetchall())


def windows_cards(asks: list[WindowAsk]) -> list[list[Card]]:
    """Each ask's cards placed in its window, newest first (as window_cards)."""
    readers = readers_of([(ask.user_id, ask.group_id) for ask in asks])
    reader_of = [readers[(ask.user_id, ask.group_id)] for ask in asks]
    # The papers with a match in each ask's window (under its follow), a query per distinct window.
    windows: dict[tuple[datetime, datetime], list[int]] = defaultdict(list)
    for i, ask in enumerate(asks):
        if ask.follow_id is None or reader_of[i].follow(ask.follow_id) is not None:
            windows[(ask.since, ask.until)].append(i)
    papers: dict[int, set[int]] = {}
    for (since, until), indexes in windows.items():
        keys = {key for i in indexes for key in reader_of[i].keys_of(asks[i].follow_id)}
        rows = _read([reader_of[i] for i in indexes], keys, Where(lo=since, hi=until))
        for i in indexes:
            found = reader_matches(reader_of[i], rows.of(reader_of[i], asks[i].follow_id), follow_id=asks[i].follow_id)
            if found:
                papers[i] = {match.paper_id for match in found}
    if not papers:
        return [[] for _ in asks]
    # Every match of those papers, their exclusions and the readers' card states.
    composing = [reader_of[i] for i in papers]
    every = set().union(*papers.values())
    rows = _read(composing, {key for reader in composing for key in reader.follows}, Where(), every)
    excluded = _excluded({key for reader in composing for key in reader.exclusions}, every)
    states = _states(composing, every)
    cards: list[list[Card]] = [[] for _ in asks]
    for i, wanted in papers.items():
        reader, ask = reader_of[i], asks[i]
        matches = reader_matches(reader, rows.of(reader, None, wanted))
        out = {paper for key in reader.exclusions for paper in excluded.get(key, ()) if paper in wanted}
        mine = states.get((reader.user_id, reader.group_id), {})
        composed = cards_of(reader, matches, excluded=out, states=mine)
        cards[i] = placed(composed.values(), ask.since, ask.until, None, ask.where)
    return cards


def _excluded(keys: set[int], papers: set[int]) -> dict[int, set[int]]:
    """The papers each of these exclusion definitions matched."""
    found: dict[int, set[int]] = defaultdict(set)
    if keys:
        rows = DefinitionMatch.objects.filter(paper_id__in=sorted(papers), definition__in=sorted(keys))
        for key, paper_id in rows.values_list("definition", "paper_id"):
            found[key].add(paper_id)
    return found


def _states(readers: list[Reader], papers: set[int]) -> dict[tuple[int, int | None], dict]:
    """Each reader's card states of these papers, by (user, group)."""
    found: dict[tuple[int, int | None], dict] = defaultdict(dict)
    users = {reader.user_id for reader in readers if reader.group_id is None}
    if users:
        for state in TrailState.objects.filter(user_id__in=sorted(users), paper_id__in=sorted(papers)):
            found[(state.user_id, None)][state.paper_id] = state
    members = {(reader.user_id, reader.group_id) for reader in readers if reader.group_id is not None}
    if members:
        rows = GroupTrailState.objects.filter(
            group_id__in=sorted({group for _, group in members}),
            user_id__in=sorted({user for user, _ in members}),
            paper_id__in=sorted(papers),
        )
        for state in rows:
            if (state.user_id, state.group_id) in members:
                found[(state.user_id, state.group_id)][state.paper_id] = state
    return found
