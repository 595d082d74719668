"""Why a paper is recommended: the saved papers it is closest to (cosine of
the paper vectors) and its terms that weigh most in the user's model."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from accounts.recommend.estimators import LinearModel
from accounts.recommend.features import PaperText, readable_terms
from accounts.recommend.training import Neighbours

NEIGHBOURS_SHOWN = 3
TERMS_SHOWN = 6


def explain(
    papers: list[PaperText],
    vectors: sparse.csr_matrix,
    model: LinearModel,
    neighbours: Neighbours,
    terms_cache: dict,
) -> list[dict]:
    """One reasons dict per paper (rows of `vectors`): {"neighbours": [[paper id,
    similarity], …], "terms": [term, …]}. The lookups are done for all rows at
    once: this runs for every user after every harvest."""
    vectors = vectors.tocsr()
    if neighbours.vectors.shape[0]:
        similarities = (vectors @ neighbours.vectors.T).toarray()
        closest = np.argsort(-similarities, axis=1)[:, :NEIGHBOURS_SHOWN]
    else:
        similarities = closest = None
    contributions = vectors.data * model.weights_at(vectors.indices)
    reasons = []
    for row, paper in enumerate(papers):
        near = []
        if closest is not None:
            near = [
                [int(neighbours.paper_ids[i]), round(float(similarities[row, i]), 3)]
                for i in closest[row]
                if similarities[row, i] > 0
            ]
        start, end = vectors.indptr[row], vectors.indptr[row + 1]
        weights = contributions[start:end]
        if paper.id not in terms_cache:
            terms_cache[paper.id] = readable_terms(paper)
        names = terms_cache[paper.id]
        terms: list[str] = []
        for position in np.argsort(-weights)[: TERMS_SHOWN * 2]:
            if weights[position] <= 0 or len(terms) >= TERMS_SHOWN:
                break
            term = names.get(int(vectors.indices[start + position]))
            if term and term not in terms:
                terms.append(term)
        reasons.append({"neighbours": near, "terms": terms})
    return reasons
