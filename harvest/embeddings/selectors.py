"""Reads over the embeddings: what waits for one, the papers nearest a query
or a paper (the library's semantic search and "similar papers")."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from functools import lru_cache

import numpy as np
from django.db.models import QuerySet

from harvest.embeddings.encoders import get_encoder, model_name
from harvest.embeddings.index import VectorIndex, index_directory, vector_of, vectors_of
from harvest.embeddings.reference import ReferenceStatistics, reference_statistics
from harvest.embeddings.services import pending_papers
from harvest.models import Paper, PaperEmbedding, ReadingEmbedding, StoredVector

# Past this many papers a filtered search ranks the filter's own papers
# exactly instead of filtering the index's nearest ones (which a narrow filter
# would leave few of).
EXACT_FILTER_LIMIT = 20_000
# Pseudo-relevance feedback: the query is moved toward its first few papers
# and ranked again (docs/search.md has the measurement; 0 turns it off).
FEEDBACK_PAPERS = 3
FEEDBACK_WEIGHT = 0.5
# The papers' and their Chinese readings' similarities are compared as
# z-scores, each against its own table's typical similarity to the query: a
# Chinese text's cosine to a Chinese query runs higher than an English one's,
# so raw cosines would lift every paper that has a reading. Below this many
# readings their spread is not known well enough, and they are not used.
READINGS_MIN = 20
# The statistics are read again once the table has grown by this share.
_REFERENCE_REFRESH = 0.1

_indexes: dict[tuple[str, str, str], VectorIndex] = {}
_indexes_lock = threading.Lock()
_references: dict[int, tuple[int, ReferenceStatistics]] = {}


def vector_index(table: type[StoredVector] = PaperEmbedding) -> VectorIndex:
    """This process's index of the configured model's embeddings in `table`."""
    encoder = get_encoder()
    directory = index_directory()
    key = (encoder.name, str(directory), table.__name__)
    with _indexes_lock:
        if key not in _indexes:
            _indexes[key] = VectorIndex(encoder.name, encoder.dimension, directory, table=table)
        return _indexes[key]


def pending_count() -> int:
    """Papers that wait for an embedding by the configured model."""
    return pending_papers(model=model_name()).count()


def query_vector(text: str) -> np.ndarray:
    return _embedded_query(get_encoder().name, " ".join(text.split()))


@lru_cache(maxsize=256)
def _embedded_query(model: str, text: str) -> np.ndarray:
    """A search embeds its query once: its ranking and its similarity floor
    (harvest/search_floor.py) read the same vector. Read-only, as it is shared."""
    vector = get_encoder().embed_query(text)
    vector.setflags(write=False)
    return vector


def with_feedback(query: np.ndarray, nearest: np.ndarray) -> np.ndarray:
    """The query moved toward its nearest papers (pseudo-relevance feedback,
    Rocchio's rule in the embedding space): a short or foreign-language query
    then ranks by what the papers it surely meant have in common."""
    if not FEEDBACK_PAPERS or not len(nearest):
        return query
    moved = query + FEEDBACK_WEIGHT * nearest[:FEEDBACK_PAPERS].mean(axis=0)
    return moved / max(float(np.linalg.norm(moved)), 1e-12)


def reference_of(index: VectorIndex) -> ReferenceStatistics:
    """The statistics of the index's table, kept by this process until the
    table has grown by a tenth."""
    size = index.size()
    with _indexes_lock:
        known = _references.get(id(index))
    if known is not None and abs(size - known[0]) <= _REFERENCE_REFRESH * max(known[0], 1):
        return known[1]
    stats = reference_statistics(model=index.model, dimension=index.dimension, table=index.table)
    with _indexes_lock:
        _references[id(index)] = (size, stats)
    return stats


def with_readings(
    papers: list[tuple[int, float]],
    paper_query: np.ndarray,
    readings: list[tuple[int, float]],
    reading_query: np.ndarray,
    k: int,
) -> list[tuple[int, float]]:
    """The papers' ranking alone while the readings are too few to compare;
    else every paper either side found scored by the better of its two
    z-scores (its own vector's against the papers', its reading's against the
    readings'), best first. Measured with half the papers given readings, this
    lifted the papers that have one and left the others where they were
    (docs/search.md)."""
    reading_stats = reference_of(vector_index(ReadingEmbedding)) if readings else None
    if reading_stats is None or reading_stats.papers < READINGS_MIN:
        return papers[:k]
    encoder = get_encoder()
    found = {paper_id for paper_id, _ in papers} | {paper_id for paper_id, _ in readings}
    scores: dict[int, float] = {}
    for table, query, stats in (
        (PaperEmbedding, paper_query, reference_of(vector_index())),
        (ReadingEmbedding, reading_query, reading_stats),
    ):
        ids, vectors = vectors_of(list(found), model=encoder.name, dimension=encoder.dimension, table=table)
        mean, spread = stats.similarity_spread(query)
        for paper_id, similarity in zip(ids, vectors @ query, strict=True):
            score = (float(similarity) - mean) / spread
            scores[paper_id] = max(score, scores.get(paper_id, score))
    return sorted(scores.items(), key=lambda item: (-item[1], -item[0]))[:k]


def nearest_to_query(text: str, *, k: int) -> list[tuple[int, float]]:
    """The library's papers nearest the text, best first (the indexes of the
    papers' and of their readings' vectors)."""
    index = vector_index()
    query = query_vector(text)
    readings = vector_index(ReadingEmbedding).search(query, k)
    if not FEEDBACK_PAPERS:
        return with_readings(index.search(query, k), query, readings, query, k)
    first = index.search(query, FEEDBACK_PAPERS)
    if not first:
        return with_readings([], query, readings, query, k)
    encoder = get_encoder()
    _, nearest = vectors_of(
        [paper_id for paper_id, _ in first[:FEEDBACK_PAPERS]], model=encoder.name, dimension=encoder.dimension
    )
    moved = with_feedback(query, nearest)
    return with_readings(index.search(moved, k), moved, readings, query, k)


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
    query = moved = query_vector(text)
    scores = vectors @ query
    if FEEDBACK_PAPERS:
        first = np.argsort(-scores)[:FEEDBACK_PAPERS]
        moved = with_feedback(query, vectors[first])
        scores = vectors @ moved
    top = np.argsort(-scores)[:k]
    ranked = [(ids[row], float(scores[row])) for row in top]
    reading_ids, reading_vectors = vectors_of(
        papers, model=encoder.name, dimension=encoder.dimension, limit=EXACT_FILTER_LIMIT, table=ReadingEmbedding
    )
    reading_scores = reading_vectors @ query
    readings = [(reading_ids[row], float(reading_scores[row])) for row in np.argsort(-reading_scores)[:k]]
    return with_readings(ranked, moved, readings, query, k)


def similar_papers(paper: Paper, *, k: int = 10) -> list[tuple[int, float]]:
    """The papers nearest this one (itself left out); none before it is embedded."""
    encoder = get_encoder()
    vector = vector_of(paper.pk, model=encoder.name, dimension=encoder.dimension)
    if vector is None:
        return []
    return vector_index().search(vector, k, exclude=frozenset({paper.pk}))
