"""What matching reads from the library: a batch's papers with their events
and search lexemes, and the compiled form of a keyword query."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from itertools import islice
from typing import Any

from django.db import connection

from accounts.follows import tsquery
from accounts.follows.matching import NEW, REVISION, PaperFacts
from harvest.filters import SEPARATORS, PaperFilterSet
from harvest.keyword_search import MAX_QUERY_WORDS
from harvest.models import Paper, Version
from harvest.search_index import SEARCH_VECTOR_SQL

CHUNK = 5000

# A paper's lexemes and positions: its stored search vector, or for a paper
# the search index has not reached yet (every paper of a fresh harvest) the
# same vector computed here, so follows see a paper as the library will.
_LEXEMES_SQL = f"""
SELECT p.id, u.lexeme, u.positions
FROM harvest_paper p
CROSS JOIN LATERAL unnest(
    CASE WHEN p.search_pending OR p.search_vector IS NULL THEN {SEARCH_VECTOR_SQL} ELSE p.search_vector END
) AS u(lexeme, positions, weights)
WHERE p.id = ANY(%s)
"""  # noqa: S608 (constant SQL)

_QUERY_SQL = f"""
SELECT p.id FROM harvest_paper p
WHERE p.id = ANY(%s) AND (
    CASE WHEN p.search_pending OR p.search_vector IS NULL THEN {SEARCH_VECTOR_SQL} ELSE p.search_vector END
) @@ %s::tsquery
"""  # noqa: S608 (constant SQL)


def is_fulltext() -> bool:
    return connection.vendor == "postgresql"


def _chunks(values: Iterable[int], size: int = CHUNK) -> Iterable[list[int]]:
    iterator = iter(values)
    while chunk := list(islice(iterator, size)):
        yield chunk


def compile_query(text: str) -> dict[str, Any]:
    """The library's `q` as matching needs it: PostgreSQL's
    websearch_to_tsquery('english', …) text and its tree; on SQLite the words
    the library's fallback looks for. `tree`/`words` empty: nothing to search."""
    text = text.strip()
    if not is_fulltext():
        words = [word.strip('"') for word in SEPARATORS.split(text) if word.strip('"')][:MAX_QUERY_WORDS]
        return {"q": text, "words": words}
    with connection.cursor() as cursor:
        cursor.execute("SELECT websearch_to_tsquery('english'::regconfig, %s)::text", [text])
        (query_text,) = cursor.fetchone()
    tree, exact = tsquery.parse(query_text)
    return {"q": text, "tsquery": query_text, "tree": tree, "exact": exact}


def query_is_searchable(compiled: Mapping[str, Any]) -> bool:
    """Whether a compiled query looks for at least one word in every alternative."""
    if "words" in compiled:
        return bool(compiled["words"])
    tree = compiled.get("tree")
    return bool(tree) and tsquery.is_bounded(tree)


def paper_events(version_ids: Iterable[int]) -> list[PaperFacts]:
    """One event per paper of these versions, newest version first stored."""
    latest: dict[int, tuple[int, int, Any]] = {}
    arrived: set[int] = set()
    for chunk in _chunks(sorted(set(version_ids))):
        for vid, paper_id, number, discovered_at in Version.objects.filter(id__in=chunk).values_list(
            "id", "paper_id", "number", "discovered_at"
        ):
            if number == 1:
                arrived.add(paper_id)
            if paper_id not in latest or number > latest[paper_id][1]:
                latest[paper_id] = (vid, number, discovered_at)
    return papers_facts(latest, arrived)


def papers_facts(latest: Mapping[int, tuple[int, int, Any]], arrived: set[int]) -> list[PaperFacts]:
    fulltext = is_fulltext()
    facts: list[PaperFacts] = []
    for chunk in _chunks(sorted(latest)):
        lexemes = _lexemes(chunk) if fulltext else {}
        rows = Paper.objects.filter(id__in=chunk).values_list("id", "categories", "authors", "title", "abstract")
        for paper_id, categories, authors, title, abstract in rows:
            vid, number, at = latest[paper_id]
            facts.append(
                PaperFacts(
                    paper_id=paper_id,
                    version_id=vid,
                    version_number=number,
                    kind=NEW if paper_id in arrived else REVISION,
                    event_at=at,
                    categories=tuple(categories or ()),
                    authors=tuple(authors or ()),
                    lexemes=lexemes.get(paper_id, {}) if fulltext else None,
                    title="" if fulltext else title,
                    abstract="" if fulltext else abstract,
                )
            )
    return facts


def _lexemes(paper_ids: list[int]) -> dict[int, dict[str, tuple[int, ...]]]:
    out: dict[int, dict[str, tuple[int, ...]]] = defaultdict(dict)
    with connection.cursor() as cursor:
        cursor.execute(_LEXEMES_SQL, [paper_ids])
        for paper_id, lexeme, positions in cursor.fetchall():
            out[paper_id][lexeme] = tuple(positions or ())
    return out


def sql_query_matcher(paper_ids: list[int]) -> Callable[[str], set[int]]:
    """PostgreSQL's own answer for a tsquery, among these papers."""

    def run(query_text: str) -> set[int]:
        with connection.cursor() as cursor:
            cursor.execute(_QUERY_SQL, [paper_ids, query_text])
            return {row[0] for row in cursor.fetchall()}

    return run


def filters_matcher(paper_ids: list[int]) -> Callable[[Mapping[str, Any]], set[int]]:
    """The library's FilterSet (all but `q`, which matching evaluates on the
    lexemes), among these papers."""

    def run(data: Mapping[str, Any]) -> set[int]:
        params = {key: value for key, value in data.items() if key != "q"}
        filterset = PaperFilterSet(params, queryset=Paper.objects.filter(id__in=paper_ids))
        if not filterset.is_valid():
            return set()
        return set(filterset.qs.order_by().values_list("id", flat=True))

    return run
