"""Why a paper is recommended: the saved papers it is closest to (cosine of
the paper vectors) and its terms that weigh most in the user's model."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from accounts.recommend.features import PaperText, readable_terms
from accounts.recommend.model import LinearModel
from accounts.recommend.training import Neighbours

NEIGHBOURS_SHOWN = 3
TERMS_SHOWN = 6


def explain(
    papers: list[PaperText],
    vectors: sparse.csr_matrix,
    model: LinearModel,
    dense_weights: np.ndarray,
    neighbours: Neighbours,
    terms_cache: dict,
) -> list[dict]:
    """One reasons dict per paper (rows of `vectors`): {"neighbours": [[paper id,
    similarity], …], "terms": [term, …]}."""
    similarities = (vectors @ neighbours.vectors.T).toarray() if neighbours.vectors.shape[0] else None
    reasons = []
    for row, paper in enumerate(papers):
        closest = []
        if similarities is not None:
            order = np.argsort(-similarities[row])[:NEIGHBOURS_SHOWN]
            closest = [
                [int(neighbours.paper_ids[i]), round(float(similarities[row, i]), 3)]
                for i in order
                if similarities[row, i] > 0
            ]
        start, end = vectors.indptr[row], vectors.indptr[row + 1]
        columns = vectors.indices[start:end]
        contributions = vectors.data[start:end] * dense_weights[columns]
        if paper.id not in terms_cache:
            terms_cache[paper.id] = readable_terms(paper)
        names = terms_cache[paper.id]
        terms = []
        for position in np.argsort(-contributions):
            if contributions[position] <= 0 or len(terms) >= TERMS_SHOWN:
                break
            term = names.get(int(columns[position]))
            if term and term not in terms:
                terms.append(term)
        reasons.append({"neighbours": closest, "terms": terms})
    return reasons
