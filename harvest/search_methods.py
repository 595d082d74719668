"""Ranking methods compared on the search collection before one is built into
the library (`manage.py evaluate_search --methods`, docs/search.md,
"Evaluation"). Every model's passage vectors come from the collection's
cache; the queries (and their glosses) are embedded live; the keyword side
is the library's own (`keyword_ranking`) on the collection stored in the
library for the run. The dense rankings and the fusions are computed here,
the same arithmetic the library's search does, so that many variants are
measured in one pass; the method built into the library is then measured
again through the library's own search (`evaluate`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from harvest.embeddings.encoders import Encoder
from harvest.hybrid import RRF_K, keyword_ranking
from harvest.models import Paper
from harvest.query_gloss import gloss
from harvest.query_kind import is_terms_query
from harvest.search_evaluation import (
    DEPTH,
    LANGUAGES,
    STYLES,
    Collection,
    Report,
    collection_in_library,
    ndcg_at,
    passage_vectors,
    recall_at,
)

FEEDBACK_PAPERS = 3
FEEDBACK_WEIGHT = 0.5
KEYWORD_WEIGHTS = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5)


@dataclass
class Query:
    need: int
    language: str
    style: str
    text: str
    english: str  # the text the English-side rankers read: the query, or its gloss
    dictionary_only: str  # the gloss by CC-CEDICT alone, without the research terms
    terms: bool  # a few technical terms or keyword syntax, by harvest.query_kind


def dense(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Similarities after the library's pseudo-relevance feedback (the query
    moved toward its three nearest papers), as harvest.embeddings.selectors."""
    scores = vectors @ query
    first = np.argsort(-scores)[:FEEDBACK_PAPERS]
    moved = query + FEEDBACK_WEIGHT * vectors[first].mean(axis=0)
    return vectors @ (moved / max(float(np.linalg.norm(moved)), 1e-12))


def z(scores: np.ndarray) -> np.ndarray:
    """Standard deviations above the collection's typical paper."""
    return (scores - scores.mean()) / max(float(scores.std()), 1e-12)


def rrf(dense_scores: np.ndarray, keyword: list[int], weight: float) -> np.ndarray:
    """The dense ranking's reciprocal ranks plus `weight` times the keyword
    side's (only the first SEMANTIC depth of the dense side counts, as in the
    library)."""
    fused = np.zeros(len(dense_scores))
    order = np.argsort(-dense_scores)[:100]
    fused[order] += 1.0 / (RRF_K + np.arange(1, len(order) + 1))
    for rank, row in enumerate(keyword, 1):
        fused[row] += weight / (RRF_K + rank)
    return fused


def compare(
    collection: Collection,
    encoders: dict[str, Encoder],
    *,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Every method's nDCG@10 and recall@20, by language and style."""
    vectors = {name: passage_vectors(collection, encoder, progress=progress) for name, encoder in encoders.items()}
    queries = [
        Query(number, language, style, text, english, gloss(text, research_terms=False), is_terms_query(text))
        for number, need in enumerate(collection.needs)
        for language in LANGUAGES
        for style in STYLES
        for text in [need.queries[language][style]]
        for english in [text if language == "en" else gloss(text)]
    ]
    report = Report()
    first = next(iter(encoders.values()))
    with collection_in_library(collection, vectors[next(iter(encoders))], first) as ids:
        papers = Paper.objects.filter(pk__in=list(ids.values()))
        row_of = {ids[paper["arxiv_id"]]: row for row, paper in enumerate(collection.papers)}
        arxiv = [paper["arxiv_id"] for paper in collection.papers]
        for count, query in enumerate(queries, 1):
            keyword = [row_of[pk] for pk in keyword_ranking(papers, query.english)] if query.english else []
            for method, scores in _methods(query, encoders, vectors, keyword).items():
                ranked = [arxiv[row] for row in np.argsort(-scores, kind="stable")[:DEPTH]]
                need = collection.needs[query.need]
                report.ndcg[(method, query.language, query.style)].append(ndcg_at(ranked, need.relevant))
                report.recall[(method, query.language, query.style)].append(recall_at(ranked, need.relevant))
            if progress is not None and count % 24 == 0:
                progress(f"{count} of {len(queries)} queries")
    return report


def _methods(
    query: Query, encoders: dict[str, Encoder], vectors: dict[str, np.ndarray], keyword: list[int]
) -> dict[str, np.ndarray]:
    e5, minilm = encoders["e5"], encoders["minilm"]
    e5_text = dense(vectors["e5"], e5.embed_query(query.text))
    minilm_text = dense(vectors["minilm"], minilm.embed_query(query.english or query.text))
    methods = {
        "e5": e5_text,
        "minilm": minilm_text,
        "e5 + keyword 0.5 (today)": rrf(e5_text, keyword if query.language == "en" else [], 0.5),
    }
    ensemble = z(e5_text) + z(minilm_text)
    if query.language == "zh":
        e5_gloss = dense(vectors["e5"], e5.embed_query(query.english)) if query.english else e5_text
        methods["e5 (query + gloss)"] = z(e5_text) + z(e5_gloss)
        ensemble_gloss = ensemble + z(e5_gloss)
    else:
        methods["e5 (query + gloss)"] = e5_text
        ensemble_gloss = ensemble
    methods["e5 + minilm, z"] = ensemble
    methods["e5 + minilm + e5 gloss, z"] = ensemble_gloss
    methods["e5 + minilm, cosine sum"] = e5_text + minilm_text
    methods["e5 + minilm without feedback, z"] = z(e5_text) + z(
        vectors["minilm"] @ minilm.embed_query(query.english or query.text)
    )
    if query.language == "zh":
        dictionary_only = query.dictionary_only or query.text
        methods["minilm, dictionary-only gloss"] = dense(vectors["minilm"], minilm.embed_query(dictionary_only))
        methods["e5 + minilm, dictionary-only gloss, z"] = z(e5_text) + z(methods["minilm, dictionary-only gloss"])
    else:
        methods["minilm, dictionary-only gloss"] = minilm_text
        methods["e5 + minilm, dictionary-only gloss, z"] = ensemble
    for weight in (0.1, 0.25, 0.5):
        methods[f"ensemble + keyword {weight} for terms, 0 else"] = rrf(
            ensemble, keyword, weight if query.terms else 0.0
        )
        en_only = weight if query.terms and query.language == "en" else 0.0
        methods[f"ensemble + keyword {weight} for English terms, 0 else"] = rrf(ensemble, keyword, en_only)
    return methods
