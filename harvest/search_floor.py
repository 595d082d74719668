"""Honest about nothing close: a search's papers split into those close to
the query and the nearest others. A paper is close when its similarity to
the query stands at least SIMILARITY_FLOOR standard deviations above the
typical paper's (its z-score against the library's reference statistics,
as topic follows read it); the floor was calibrated on the evaluation
collection's needs with and without relevant papers (docs/search.md,
"Nothing close"; `manage.py evaluate_search --floor`).

The search (harvest/hybrid.py) lifts the close papers' fused scores by
CLOSE_BONUS, so they come first in the relevance order, each part keeping
its own order, and a page or the API reads a paper's closeness from its
`search_rank` alone; it marks the results `search_split` when its dense
side ranked embedded papers (a library not yet embedded has no closeness)."""

from __future__ import annotations

from collections.abc import Iterable

from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.index import vectors_of
from harvest.embeddings.selectors import query_vector, reference_of, vector_index

# Measured on 64 needs and 12 needs the collection has nothing for: at 5.25 a
# few terms' best relevant paper is close for 85 % of the queries and nothing
# is close for 88 % of those without papers (docs/search.md).
SIMILARITY_FLOOR = 5.25
# Larger than any fused score (reciprocal ranks sum to well below 1).
CLOSE_BONUS = 1.0


def close_papers(text: str, paper_ids: Iterable[int]) -> set[int]:
    """The papers among `paper_ids` whose embedding clears the floor for the query."""
    ids = list(paper_ids)
    if not ids:
        return set()
    encoder = get_encoder()
    query = query_vector(text)
    mean, spread = reference_of(vector_index()).similarity_spread(query)
    found, vectors = vectors_of(ids, model=encoder.name, dimension=encoder.dimension)
    if not len(found):
        return set()
    scores = (vectors @ query - mean) / spread
    return {paper_id for paper_id, score in zip(found, scores, strict=True) if score >= SIMILARITY_FLOOR}


def splits_by_closeness(papers) -> bool:
    """Whether these results (a page of them, in any order) are split into
    close papers and the nearest others: a semantic or hybrid search whose
    dense side ranked embedded papers."""
    return bool(papers) and bool(getattr(papers[0], "search_split", False))


def is_close(paper) -> bool:
    """Whether a paper of a semantic or hybrid search is close to its query."""
    return getattr(paper, "search_rank", 0.0) >= CLOSE_BONUS


def close_count(queryset) -> int:
    """How many papers of a semantic or hybrid search's results are close."""
    return queryset.filter(search_rank__gte=CLOSE_BONUS).order_by().count()
