"""The similarity floor's calibration (`manage.py evaluate_search --floor`,
docs/search.md, "Nothing close"): how well a floor on a paper's z-score
(its similarity to the query in standard deviations above the collection's
typical paper, harvest/search_floor.py) tells close matches from the nearest
others. For every query of the collection's needs: whether its need's best
relevant paper clears the floor, and how many of the papers that clear it
are relevant; for every query of the needs the collection has nothing for:
whether no paper clears it; and, as a harder check, whether a need's query
finds nothing close once that need's own papers are taken out. By the kind
of query (harvest/query_kind.py), since a few terms and a description reach
different similarities."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from harvest.embeddings.encoders import Encoder
from harvest.query_kind import is_terms_query
from harvest.search_evaluation import LANGUAGES, STYLES, Collection, passage_vectors

KINDS = ("terms", "description", "all")


@dataclass
class Scored:
    kind: str
    best_relevant: float | None  # None for a need the collection has nothing for
    best_other: float  # the best paper not judged relevant
    relevant: np.ndarray  # which papers are judged relevant
    scores: np.ndarray  # every paper's z-score


def scored_queries(collection: Collection, encoder: Encoder) -> list[Scored]:
    vectors = passage_vectors(collection, encoder).astype(np.float64)
    mean, covariance = vectors.mean(axis=0), np.cov(vectors, rowvar=False)
    row = {paper["arxiv_id"]: number for number, paper in enumerate(collection.papers)}
    scored = []
    for need in [*collection.needs, *collection.unanswered]:
        relevant = np.zeros(len(vectors), dtype=bool)
        relevant[[row[arxiv_id] for arxiv_id in need.relevant if arxiv_id in row]] = True
        for language in LANGUAGES:
            for style in STYLES:
                text = need.queries[language][style]
                query = encoder.embed_query(text).astype(np.float64)
                scores = (vectors @ query - mean @ query) / np.sqrt(query @ covariance @ query)
                best = float(scores[relevant].max()) if relevant.any() else None
                kind = "terms" if is_terms_query(text) else "description"
                scored.append(Scored(kind, best, float(scores[~relevant].max()), relevant, scores))
    return scored


def floor_separation(collection: Collection, encoder: Encoder, floors: tuple[float, ...]) -> str:
    scored = scored_queries(collection, encoder)
    lines = [
        "| floor (z) | queries | best relevant paper close | close papers a query (median) | of them relevant "
        "| nothing close, needs without papers | nothing close, a need's papers taken out |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for floor in floors:
        for kind in KINDS:
            chosen = [item for item in scored if kind == "all" or item.kind == kind]
            answered = [item for item in chosen if item.best_relevant is not None]
            unanswered = [item for item in chosen if item.best_relevant is None]
            found = np.mean([item.best_relevant >= floor for item in answered])
            close = [item.scores >= floor for item in answered]
            pairs = zip(answered, close, strict=True)
            precision = [float(item.relevant[mask].mean()) for item, mask in pairs if mask.any()]
            nothing = np.mean([item.best_other < floor for item in unanswered]) if unanswered else float("nan")
            taken_out = np.mean([item.best_other < floor for item in answered])
            lines.append(
                f"| {floor:.2f} | {kind} ({len(answered)} + {len(unanswered)}) | {found:.2f} "
                f"| {np.median([mask.sum() for mask in close]):.0f} | {np.mean(precision):.2f} "
                f"| {nothing:.2f} | {taken_out:.2f} |"
            )
    return "\n".join(lines)
