"""Reads over the embeddings: what waits for one, the papers nearest a query
or a paper (the library's semantic search and "similar papers")."""

from __future__ import annotations

import threading
from collections.abc import Iterable

import numpy as np
from django.db.models import QuerySet

from harvest.embeddings.encoders import get_encoder, model_name
from harvest.embeddings.index import VectorIndex, index_directory, vector_of, vectors_of
from harvest.embeddings.services import pending_papers
from harvest.models import Paper

# Past this many papers a filtered search ranks the filter's own papers
# exactly instead of filtering the index's nearest ones (which a narrow filter
# would leave few of).
EXACT_FILTER_LIMIT = 20_000
# Pseudo-relevance feedback: the query is moved toward its first few papers
# and ranked again (docs/search.md has the measurement; 0 turns it off).
FEEDBACK_PAPERS = 3
FEEDBACK_WEIGHT = 0.5

_indexes: dict[tuple[str, str], VectorIndex] = {}
_indexes_lock = threading.Lock()


def vector_index() -> VectorIndex:
    """This process's index of the configured model's embeddings."""
    encoder = get_encoder()
    directory = index_directory()
    key = (encoder.name, str(directory))
    with _indexes_lock:
        if key not in _indexes:
            _indexes[key] = VectorIndex(encoder.name, encoder.dimension, directory)
        return _indexes[key]


def pending_count() -> int:
    """Papers that wait for an embedding by the configured model."""
    return pending_papers(model=model_name()).count()


def query_vector(text: str) -> np.ndarray:
    return get_encoder().embed_query(" ".join(text.split()))


def with_feedback(query: np.ndarray, nearest: np.ndarray) -> np.ndarray:
    """The query moved toward its nearest papers (pseudo-relevance feedback,
    Rocchio's rule in the embedding space): a short or foreign-language query
    then ranks by what the papers it surely meant have in common."""
    if not FEEDBACK_PAPERS or not len(nearest):
        return query
    moved = query + FEEDBACK_WEIGHT * nearest[:FEEDBACK_PAPERS].mean(axis=0)
    return moved / max(float(np.linalg.norm(moved)), 1e-12)


def nearest_to_query(text: str, *, k: int) -> list[tuple[int, float]]:
    """The library's papers nearest the text, best first (the index)."""
    index = vector_index()
    query = query_vector(text)
    if not FEEDBACK_PAPERS:
        return index.search(query, k)
    first = index.search(query, FEEDBACK_PAPERS)
    if not first:
        return []
    encoder = get_encoder()
    _, nearest = vectors_of(
        [paper_id for paper_id, _ in first[:FEEDBACK_PAPERS]], model=encoder.name, dimension=encoder.dimension
    )
    return index.search(with_feedback(query, nearest), k)


def nearest_among(text: str, papers: QuerySet[Paper] | Iterable[int], *, k: int) -> list[tuple[int, float]] | None:
    """These papers ranked exactly by their nearness to the text, best first
    (one statement reads the filter and the vectors); None when they are more
    than EXACT_FILTER_LIMIT, for the index to answer instead."""
    encoder = get_encoder()
    ids, vectors = vectors_of(papers, model=encoder.name, dimension=encoder.dimension, limit=EXACT_FILTER_LIMIT + 1)
    if len(ids) > EXACT_FILTER_LIMIT:
        return None
    if not ids:
        return []
    query = query_vector(text)
    scores = vectors @ query
    if FEEDBACK_PAPERS:
        first = np.argsort(-scores)[:FEEDBACK_PAPERS]
        scores = vectors @ with_feedback(query, vectors[first])
    top = np.argsort(-scores)[:k]
    return [(ids[row], float(scores[row])) for row in top]


def similar_papers(paper: Paper, *, k: int = 10) -> list[tuple[int, float]]:
    """The papers nearest this one (itself left out); none before it is embedded."""
    encoder = get_encoder()
    vector = vector_of(paper.pk, model=encoder.name, dimension=encoder.dimension)
    if vector is None:
        return []
    return vector_index().search(vector, k, exclude=frozenset({paper.pk}))
