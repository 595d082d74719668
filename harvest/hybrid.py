"""The library's search modes over a filtered queryset: `keyword` (the
full-text index: every word, phrases, OR, -exclusions), `semantic` (the
papers whose embeddings are nearest the query's, in any language the models
read) and `hybrid`, the default: the two rankings fused by reciprocal rank,
the keyword side weighed by the kind of query (harvest/query_kind.py: a few
terms or the keyword syntax count, a question or a description does not), and
a Chinese query's keyword side reading its English gloss (harvest/query_gloss.py).
A caller may add other English renderings of the query (an LLM's translation,
digests/translate.py): each is ranked by both sides and fused with an equal vote.

The keyword syntax keeps its meaning in every mode: `"phrases"` and
`-excluded` words filter the semantic candidates too; `OR` widens the keyword
side only. The result is the queryset narrowed to the candidates and
annotated with `search_rank`, which the relevance sort orders by, so paging,
counts and every other filter work as for a keyword search. In the semantic
and hybrid modes the papers close to the query (harvest/search_floor.py) rank
first, the nearest others after them.
docs/search.md has the measurements behind the depths and the fusion.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence

from django.db import OperationalError, connection, transaction
from django.db.models import Case, F, FloatField, QuerySet, Subquery, Value, When

from harvest.embeddings.selectors import EXACT_FILTER_LIMIT, nearest_among, nearest_to_query
from harvest.keyword_search import PaperRowExpression, full_text_search
from harvest.models import Paper
from harvest.query_gloss import gloss
from harvest.query_kind import is_terms_query
from harvest.search_floor import CLOSE_BONUS, close_papers

KEYWORD = "keyword"
SEMANTIC = "semantic"
HYBRID = "hybrid"
MODES = (HYBRID, KEYWORD, SEMANTIC)
KEYWORD_DEPTH = 200  # keyword matches fused, best first
KEYWORD_CANDIDATES = 1000  # the newest matches the keyword side ranks
KEYWORD_BUDGET_MS = 120  # the most the keyword side's reads may take together
KEYWORD_MIN_READ_MS = 15  # a read with less time left is not started
SEMANTIC_DEPTH = 100  # nearest papers fused
RRF_K = 60  # the usual constant of reciprocal-rank fusion
# The keyword side counts half for a few terms or the keyword syntax, and not
# at all for a question or a description: measured on the collection, word
# overlap lifts no style and sinks paraphrases (English 0.63 → 0.50 nDCG@10
# at half weight for every query; docs/search.md, "Methods compared").
KEYWORD_WEIGHT = 0.5
DESCRIPTION_KEYWORD_WEIGHT = 0.0
_LATIN = re.compile(r"[A-Za-z0-9]")
_CONSTRAINT = re.compile(r'-?"[^"]+"|(?<!\S)-[^\s"]+')


def constraints_of(text: str) -> str:
    """The parts of a query that filter whatever the mode: its quoted phrases
    and its -exclusions, in the keyword syntax; none when the query has OR,
    whose alternatives only the keyword side can weigh."""
    if re.search(r"(?<!\S)OR(?!\S)", text):
        return ""
    return " ".join(_CONSTRAINT.findall(text))


def search(
    queryset: QuerySet[Paper],
    text: str,
    *,
    mode: str = HYBRID,
    narrowed: bool = False,
    renderings: Sequence[str] = (),
) -> QuerySet[Paper]:
    """Papers of `queryset` the query finds in this mode, with `search_rank`.
    `narrowed`: other filters already cut the library down, so the semantic
    side ranks the remaining papers themselves when they are few enough.
    `renderings`: other English texts of the query (a translation), each
    ranked like the query and fused with it; the keyword mode ignores them."""
    text = text.strip()
    if mode == KEYWORD or not text:
        return full_text_search(queryset, text) if text else queryset
    weight = keyword_weight(text)
    scores: dict[int, float] = {}
    candidates: set[int] = set()
    close: set[int] = set()
    texts = [(text, gloss(text) or text)] + [(english, english) for english in renderings if english.strip()]
    for query, english in texts:
        semantic = _semantic_ids(queryset, query, narrowed=narrowed)
        # The keyword index holds the papers' English words: a Chinese query is
        # read through its English gloss (which keeps its Latin words).
        wanted = mode == HYBRID and weight and _LATIN.search(english)
        keyword = keyword_ranking(queryset, english) if wanted else []
        for paper_id, score in fuse(keyword, semantic, keyword_weight=weight if mode == HYBRID else 0.0).items():
            scores[paper_id] = scores.get(paper_id, 0.0) + score
        # Only the dense side's candidates can clear the floor: a paper past its
        # depth has a hundred papers nearer the query (or its translation).
        close |= close_papers(query, semantic)
        candidates.update(semantic)
    for paper_id in close:
        scores[paper_id] += CLOSE_BONUS
    # Without embeddings (none stored yet) nothing can be judged close: the
    # keyword side's matches are then counted as a keyword search's.
    return _ranked(queryset, scores).annotate(search_split=Value(bool(candidates)))


def keyword_weight(text: str) -> float:
    """The keyword side's weight in the fusion, by the kind of query."""
    return KEYWORD_WEIGHT if is_terms_query(text) else DESCRIPTION_KEYWORD_WEIGHT


def keyword_ranking(queryset: QuerySet[Paper], text: str) -> list[int]:
    """The keyword side, best first: papers with every word (the keyword
    mode's matches), then those with only some of them, each part by rank.
    Only the newest KEYWORD_CANDIDATES matches of each part are ranked, in one
    statement: a common word matches a third of a large library, and ranking
    every match would read a third of its search vectors. Both reads share
    one budget, KEYWORD_BUDGET_MS: the second has what the first left."""
    ranked: list[int] = []
    deadline = time.monotonic() + KEYWORD_BUDGET_MS / 1000
    for variant in dict.fromkeys((text, any_word(text))):
        left_ms = int((deadline - time.monotonic()) * 1000)
        if not variant or len(ranked) >= KEYWORD_DEPTH or (budgeted() and left_ms < KEYWORD_MIN_READ_MS):
            continue
        found = _within_budget(lambda variant=variant: _best_of_newest(queryset, variant), left_ms)
        ranked += [paper_id for paper_id in found if paper_id not in ranked]
    return ranked[:KEYWORD_DEPTH]


def _best_of_newest(queryset: QuerySet[Paper], variant: str) -> list[int]:
    """The best KEYWORD_DEPTH of the variant's newest KEYWORD_CANDIDATES
    matches. On PostgreSQL one pass: the newest matches are ranked as they are
    read (their search vectors read once), and the outer query only orders them."""
    matches = full_text_search(queryset, variant).order_by(F("updated").desc(nulls_last=True), "-id")
    if connection.vendor == "postgresql":
        sql, params = matches.values("id", "search_rank")[:KEYWORD_CANDIDATES].query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id FROM ({sql}) AS newest ORDER BY search_rank DESC, id DESC LIMIT %s",  # noqa: S608 (compiled ORM SQL)
                [*params, KEYWORD_DEPTH],
            )
            return [row[0] for row in cursor.fetchall()]
    newest = Paper.objects.filter(id__in=Subquery(matches.values("id")[:KEYWORD_CANDIDATES]))
    best = full_text_search(newest, variant).order_by("-search_rank", "-id").values_list("id", flat=True)
    return list(best[:KEYWORD_DEPTH])


def budgeted() -> bool:
    """The keyword reads are timed out on PostgreSQL outside a caller's
    transaction (inside one a SET LOCAL would outlive the read)."""
    return connection.vendor == "postgresql" and not connection.in_atomic_block


def _within_budget(read: Callable[[], list[int]], budget_ms: int) -> list[int]:
    """The keyword side's read, given up past `budget_ms` on PostgreSQL: a
    question's words OR-ed together can match most of a large library, and
    the semantic side ranks such a query well on its own."""
    if not budgeted():
        return read()
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL statement_timeout = {int(budget_ms)}")
            return read()
    except OperationalError:  # the budget ran out (QueryCanceled)
        return []


def any_word(text: str) -> str:
    """The query with OR between its plain words (phrases and exclusions kept
    as they are): papers that have some of the words. Empty when the query
    has one word or already says OR."""
    if re.search(r"(?<!\S)OR(?!\S)", text):
        return ""
    constraints = _CONSTRAINT.findall(text)
    words = _CONSTRAINT.sub(" ", text).split()
    if len(words) < 2:
        return ""
    return " ".join([" OR ".join(words), *constraints])


def fuse(keyword: list[int], semantic: list[int], *, keyword_weight: float = KEYWORD_WEIGHT) -> dict[int, float]:
    """Reciprocal-rank fusion: each ranking adds weight / (k + rank) to a paper."""
    scores: dict[int, float] = {}
    for ranking, weight in ((keyword, keyword_weight), (semantic, 1.0)):
        for rank, paper_id in enumerate(ranking, 1):
            scores[paper_id] = scores.get(paper_id, 0.0) + weight / (RRF_K + rank)
    return scores


def _semantic_ids(queryset: QuerySet[Paper], text: str, *, narrowed: bool) -> list[int]:
    constraint = constraints_of(text)
    pool = full_text_search(queryset, constraint) if constraint else queryset
    if narrowed or constraint:
        # A full-text filter's expressions resolve against their own query
        # only: read its ids first rather than nest it in the vectors' query.
        among = list(pool.order_by().values_list("id", flat=True)[: EXACT_FILTER_LIMIT + 1]) if constraint else pool
        ranked = nearest_among(text, among.values("id") if isinstance(among, QuerySet) else among, k=SEMANTIC_DEPTH)
        if ranked is not None:
            return [paper_id for paper_id, _ in ranked]
    # The whole library (or a broad filter): the index's nearest, kept if the
    # filters and constraints admit them; a few times the depth is read when a
    # filter will take some away.
    filtered = narrowed or bool(constraint)
    nearest = [paper_id for paper_id, _ in nearest_to_query(text, k=SEMANTIC_DEPTH * (4 if filtered else 1))]
    admitted = set(pool.filter(id__in=nearest).values_list("id", flat=True)) if filtered else None
    return [paper_id for paper_id in nearest if admitted is None or paper_id in admitted][:SEMANTIC_DEPTH]


class FusedScore(PaperRowExpression):
    """PostgreSQL: the fused score of the paper under whatever alias the query
    gives it, looked up in two array parameters. Django builds and compiles a
    CASE of one WHEN per candidate in about as long as the search itself takes
    (300 candidates: tens of milliseconds a statement, and a page runs several)."""

    def __init__(self, scores: dict[int, float]) -> None:
        super().__init__(output_field=FloatField())
        self.ids = list(scores)
        self.values = [float(score) for score in scores.values()]

    def as_sql(self, compiler, connection):
        column, params = compiler.compile(self.id_column)
        return f"COALESCE((%s::float8[])[array_position(%s::bigint[], {column})], 0.0)", [
            self.values,
            self.ids,
            *params,
        ]


def _ranked(queryset: QuerySet[Paper], scores: dict[int, float]) -> QuerySet[Paper]:
    if not scores:
        return queryset.none().annotate(search_rank=Value(0.0, output_field=FloatField()))
    if connection.vendor == "postgresql":
        rank = FusedScore(scores)
    else:
        rank = Case(
            *(When(id=paper_id, then=Value(score)) for paper_id, score in scores.items()),
            default=Value(0.0),
            output_field=FloatField(),
        )
    return queryset.filter(id__in=list(scores)).annotate(search_rank=rank)
