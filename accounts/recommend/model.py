"""The per-user model: a linear classifier over paper vectors (features.py),
saved papers against explicit negatives and a background sample, stored as a
sparse weight vector."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

from accounts.recommend.features import N_FEATURES

# Regularisation and the weight of each kind of example, chosen on the offline
# evaluation (docs/recommendations.md). Explicit negatives weigh more than
# background papers: the user said no to them; the background is only "not
# chosen", and may hold papers the user would have liked.
C = 4.0
NEGATIVE_WEIGHT = 2.0
BACKGROUND_WEIGHT = 1.0
# Only the weightiest coefficients are kept: scoring a day for every user
# reads every model, and the smallest weights barely move a ranking
# (the evaluation's figures are with this cut).
MAX_WEIGHTS = 8000


@dataclass
class LinearModel:
    indices: np.ndarray  # int32 feature columns with a non-zero weight
    weights: np.ndarray  # float32
    intercept: float

    def weights_at(self, columns: np.ndarray) -> np.ndarray:
        """The weights of these feature columns (0 where the model has none);
        `indices` is sorted, so a binary search replaces a dense vector."""
        positions = np.searchsorted(self.indices, columns)
        positions = np.minimum(positions, max(len(self.indices) - 1, 0))
        if not len(self.indices):
            return np.zeros(len(columns), dtype=np.float32)
        found = self.indices[positions] == columns
        return np.where(found, self.weights[positions], 0).astype(np.float32)

    def column(self) -> sparse.csc_matrix:
        return sparse.csc_matrix(
            (self.weights, (self.indices, np.zeros(len(self.indices), dtype=np.int32))), shape=(N_FEATURES, 1)
        )

    def score(self, vectors: sparse.csr_matrix) -> np.ndarray:
        return np.asarray(vectors @ self.column().toarray()).ravel() + self.intercept

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, indices=self.indices, weights=self.weights, intercept=np.float32(self.intercept))
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> LinearModel:
        stored = np.load(io.BytesIO(bytes(data)))
        return cls(stored["indices"], stored["weights"], float(stored["intercept"]))


def fit(
    positives: sparse.csr_matrix,
    positive_weights: np.ndarray,
    negatives: sparse.csr_matrix,
    background: sparse.csr_matrix,
) -> LinearModel:
    """Saved papers (weighted, recent ones more) against negatives and background."""
    rows = sparse.vstack([positives, negatives, background]).tocsr()
    labels = np.r_[np.ones(positives.shape[0]), np.zeros(negatives.shape[0] + background.shape[0])]
    weights = np.r_[
        positive_weights,
        np.full(negatives.shape[0], NEGATIVE_WEIGHT),
        np.full(background.shape[0], BACKGROUND_WEIGHT),
    ].astype(np.float64)
    # Balance the classes: a handful of saves against hundreds of others.
    positive_total = weights[labels == 1].sum()
    negative_total = weights[labels == 0].sum()
    if positive_total and negative_total:
        weights[labels == 1] *= negative_total / positive_total
    # The solver's cost grows with the width of the matrix: fit on the columns
    # the examples use (a few tens of thousands of the 2**20), then map back.
    used = np.unique(rows.indices).astype(np.int32)
    compact = rows[:, used]
    # The dual problem: far fewer examples than feature columns.
    classifier = LogisticRegression(C=C, solver="liblinear", dual=True, max_iter=500)
    classifier.fit(compact, labels, sample_weight=weights)
    coefficients = classifier.coef_.ravel().astype(np.float32)
    kept = np.flatnonzero(coefficients)
    if len(kept) > MAX_WEIGHTS:
        kept = np.sort(np.argpartition(-np.abs(coefficients), MAX_WEIGHTS)[:MAX_WEIGHTS])
    return LinearModel(used[kept], coefficients[kept], float(classifier.intercept_[0]))
