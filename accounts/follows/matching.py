"""Matching a batch of new versions against follows: pure functions over plain
data, so that the matcher can be measured (and tested) apart from the database.

The batch's papers are indexed once (`DayIndex`): category code and archive
-> papers, normalised author name -> papers, lexeme -> papers. Each distinct
follow definition is evaluated once per batch, whoever follows it
(thousands of users follow cs.CL), by dictionary lookups: a query checks
only the papers holding its rarest required lexeme. What is left per follow
is cheap: revisions on or off, "not this person" rejections and the user's
exclusions.

Three kinds of evaluation need the database and come in as callables: a saved
library view's filters other than `q` (`filters`: data -> paper ids, run with
the library's own FilterSet), the rare tsquery that Python does not
evaluate exactly (`sql_query`: tsquery text -> paper ids) and a topic's
nearness by embedding (`topics`: compiled topic -> paper id -> reason).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from accounts.follows import tsquery
from accounts.follows.names import normalise_name

NEW = "new"
REVISION = "revision"


@dataclass(frozen=True, slots=True)
class PaperFacts:
    """A paper of the batch and its event: the latest new version, `new` when
    the paper's v1 arrived in the batch, else `revision`."""

    paper_id: int
    version_id: int
    version_number: int
    kind: str
    event_at: datetime
    categories: tuple[str, ...]  # primary first
    authors: tuple[str, ...]
    lexemes: Mapping[str, Sequence[int]] | None = None  # PostgreSQL: the paper's search vector
    title: str = ""
    abstract: str = ""


@dataclass(frozen=True, slots=True)
class FollowRules:
    """A follow's own switches over what its definition matches: cross-lists,
    revisions, and the papers "not this person" took out. Applied the same
    way when a batch is matched for one follow (a back-fill) and when a
    reader's trail is composed from the definitions' matches (on PostgreSQL,
    the same rules are also written in SQL: accounts.trail.reader_sql)."""

    include_cross_lists: bool = True
    include_revisions: bool = True
    rejected: frozenset[int] = frozenset()

    @classmethod
    def of(cls, include_cross_lists: bool, include_revisions: bool, rejected: Iterable[int] | None) -> FollowRules:
        return cls(include_cross_lists, include_revisions, frozenset(rejected or ()))

    def admits(self, *, paper_id: int, event_kind: str, primary: bool = True) -> bool:
        if not (primary or self.include_cross_lists) or paper_id in self.rejected:
            return False
        return event_kind != REVISION or self.include_revisions


@dataclass(frozen=True, slots=True)
class FollowSpec:
    follow_id: int
    user_id: int | None  # None: a lab group's follow (no exclusions)
    kind: str
    compiled: Mapping[str, Any]
    rules: FollowRules = FollowRules()


@dataclass(frozen=True, slots=True)
class ExclusionSpec:
    kind: str  # category | query
    compiled: Mapping[str, Any]


@dataclass(slots=True)
class Hit:
    user_id: int | None  # None: a lab group's follow's match
    follow_id: int | None  # None: a reader's own match with no follow (a saved paper's revision)
    paper_id: int
    version_id: int
    version_number: int
    kind: str
    event_at: datetime
    reason: dict[str, Any]


def archive_of(code: str) -> str:
    return code.split(".", 1)[0]


@dataclass
class DayIndex:
    papers: Sequence[PaperFacts]
    fulltext: bool = True  # PostgreSQL lexemes; False: the SQLite word containment
    filters: Callable[[Mapping[str, Any]], set[int]] | None = None
    sql_query: Callable[[str], set[int]] | None = None
    topics: Callable[[Mapping[str, Any]], dict[int, dict[str, Any]]] | None = None
    by_code: dict[str, list[tuple[int, bool]]] = field(default_factory=lambda: defaultdict(list))
    by_archive: dict[str, list[tuple[int, bool, str]]] = field(default_factory=lambda: defaultdict(list))
    by_author: dict[str, list[tuple[int, str]]] = field(default_factory=lambda: defaultdict(list))
    postings: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    _memo: dict[tuple, dict[int, dict[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for index, paper in enumerate(self.papers):
            seen_archives: set[str] = set()
            for position, code in enumerate(paper.categories):
                self.by_code[code].append((index, position == 0))
                archive = archive_of(code)
                if archive not in seen_archives:
                    seen_archives.add(archive)
                    self.by_archive[archive].append((index, position == 0, code))
            for name in paper.authors:
                self.by_author[normalise_name(name)].append((index, name))
            for lexeme in paper.lexemes or ():
                self.postings[lexeme].add(index)

    # --- one follow definition: paper index -> reason -----------------------
    def evaluate(
        self, kind: str, compiled: Mapping[str, Any], cross_lists: bool = True, *, remember: bool = True
    ) -> dict[int, dict[str, Any]]:
        """`remember=False` for a caller that asks each definition once (the
        definitions' matches): memory then stays flat."""
        if not remember:
            return getattr(self, f"_{kind}")(compiled, cross_lists)
        key = (kind, json.dumps(compiled, sort_keys=True), cross_lists)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = getattr(self, f"_{kind}")(compiled, cross_lists)
        return found

    def _category(self, compiled: Mapping[str, Any], cross_lists: bool) -> dict[int, dict[str, Any]]:
        if "archive" in compiled:
            rows = self.by_archive.get(compiled["archive"], ())
            return {i: {"category": code, "primary": primary} for i, primary, code in rows if primary or cross_lists}
        code = compiled["code"]
        return {
            i: {"category": code, "primary": primary}
            for i, primary in self.by_code.get(code, ())
            if primary or cross_lists
        }

    def _author(self, compiled: Mapping[str, Any], cross_lists: bool) -> dict[int, dict[str, Any]]:
        found: dict[int, dict[str, Any]] = {}
        for variant in compiled["variants"]:
            for i, name in self.by_author.get(variant, ()):
                found.setdefault(i, {"author": name, "variant": variant})
        return found

    def _query(self, compiled: Mapping[str, Any], cross_lists: bool) -> dict[int, dict[str, Any]]:
        return self.query_matches(compiled, range(len(self.papers)))

    def _filters(self, compiled: Mapping[str, Any], cross_lists: bool) -> dict[int, dict[str, Any]]:
        data = compiled["data"]
        ids = self.filters(data) if self.filters else set()
        among = [i for i, paper in enumerate(self.papers) if paper.paper_id in ids]
        found = self.query_matches(compiled["query"], among) if compiled.get("query") else {i: {} for i in among}
        return {i: {"filters": data, **reason} for i, reason in found.items()}

    def _topic(self, compiled: Mapping[str, Any], cross_lists: bool) -> dict[int, dict[str, Any]]:
        found = self.topics(compiled) if self.topics else {}
        return {i: found[paper.paper_id] for i, paper in enumerate(self.papers) if paper.paper_id in found}

    def query_matches(self, compiled: Mapping[str, Any], among: Iterable[int]) -> dict[int, dict[str, Any]]:
        """Papers (of `among`) that the library's `q` finds, with the query's
        terms found in each (for highlighting)."""
        if not self.fulltext:
            words = [word.lower() for word in compiled.get("words", ())]
            if not words:
                return {}
            return {
                i: {"query": compiled["q"], "words": words}
                for i in among
                if all(w in self.papers[i].title.lower() or w in self.papers[i].abstract.lower() for w in words)
            }
        tree = compiled.get("tree")
        if not tree:
            return {}
        if not compiled.get("exact", True):
            ids = self.sql_query(compiled["tsquery"]) if self.sql_query else set()
            hits = [i for i in among if self.papers[i].paper_id in ids]
        else:
            pool = tsquery.candidates(tree, self.postings)
            chosen = among if pool is None else (pool if isinstance(among, range) else pool.intersection(among))
            hits = [i for i in chosen if tsquery.matches(tree, self.papers[i].lexemes or {})]
        terms = tsquery.lexemes(tree)
        return {
            i: {"query": compiled["q"], "lexemes": [t for t in terms if t in (self.papers[i].lexemes or {})]}
            for i in sorted(hits)
        }

    def excluded(self, exclusions: Sequence[ExclusionSpec]) -> set[int]:
        out: set[int] = set()
        for exclusion in exclusions:
            kind = "category" if exclusion.kind == "category" else "query"
            out.update(self.evaluate(kind, exclusion.compiled))
        return out


def match_follows(
    index: DayIndex,
    follows: Iterable[FollowSpec],
    exclusions: Mapping[int, Sequence[ExclusionSpec]] | None = None,
) -> Iterator[Hit]:
    """Every (follow, paper) match of the batch, as hits in follow order.
    Hits of one follow definition and paper share one reason dict (the trail
    writers serialise it once): read it, do not change it."""
    exclusions = exclusions or {}
    # Follows come in user order: one user's exclusions are evaluated once and
    # forgotten with the next user, so memory stays flat however many users.
    user_id: int | None = None
    excluded: set[int] = set()
    for follow in follows:
        found = index.evaluate(follow.kind, follow.compiled, follow.rules.include_cross_lists)
        if not found:
            continue
        if follow.user_id != user_id:
            user_id = follow.user_id
            excluded = index.excluded(exclusions.get(user_id, ()))
        for i, reason in found.items():
            paper = index.papers[i]
            if i in excluded or not follow.rules.admits(paper_id=paper.paper_id, event_kind=paper.kind):
                continue
            yield Hit(
                user_id=follow.user_id,
                follow_id=follow.follow_id,
                paper_id=paper.paper_id,
                version_id=paper.version_id,
                version_number=paper.version_number,
                kind=paper.kind,
                event_at=paper.event_at,
                reason=reason,
            )
