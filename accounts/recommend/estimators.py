"""What a researcher's recommender learns, the two halves blended (chosen on
the offline evaluation, docs/recommendations.md); their stored rows are the
Django models of models.py (RecommenderModel).

The text model: a linear classifier over hashed TF-IDF paper vectors
(features.py), saved papers against explicit negatives and a background
sample, stored as a sparse weight vector.

The embedding model: over paper embeddings (harvest.embeddings: unit-length
vectors), a weighted ridge regression solved in closed form: liked papers
(saves, thumbs up) are +1, disliked ones (thumbs down, dismissals) and
background papers -1, the classes balanced, the rows centred on the
background's mean. Its scores are then put in background units (0 is the
typical background paper, 1 a standard deviation above it), as are the text
model's, so the two halves add up and a user's scores compare with
another's. Training is one d x d solve; scoring many users is one matrix
product (`score_matrix`)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

from accounts.recommend.features import N_FEATURES

# --- the text model ---------------------------------------------------------------
# Regularisation and the weight of each kind of example, chosen on the offline
# evaluation (docs/recommendations.md). Explicit negatives weigh more than
# background papers: the user said no to them; the background is only "not
# chosen", and may hold papers the user would have liked.
TEXT_C = 4.0
TEXT_NEGATIVE_WEIGHT = 2.0
TEXT_BACKGROUND_WEIGHT = 1.0
# Only the weightiest coefficients are kept: scoring a day for every user
# reads every model, and the smallest weights barely move a ranking
# (the evaluation's figures are with this cut).
TEXT_MAX_WEIGHTS = 8000


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


def fit_text_model(
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
        np.full(negatives.shape[0], TEXT_NEGATIVE_WEIGHT),
        np.full(background.shape[0], TEXT_BACKGROUND_WEIGHT),
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
    classifier = LogisticRegression(C=TEXT_C, solver="liblinear", dual=True, max_iter=500)
    classifier.fit(compact, labels, sample_weight=weights)
    coefficients = classifier.coef_.ravel().astype(np.float32)
    kept = np.flatnonzero(coefficients)
    if len(kept) > TEXT_MAX_WEIGHTS:
        kept = np.sort(np.argpartition(-np.abs(coefficients), TEXT_MAX_WEIGHTS)[:TEXT_MAX_WEIGHTS])
    return LinearModel(used[kept], coefficients[kept], float(classifier.intercept_[0]))


# --- the embedding model ----------------------------------------------------------
# Chosen on the tuning topics of the offline evaluation (docs/recommendations.md).
RIDGE = 1.0
EMBEDDING_NEGATIVE_WEIGHT = 2.0  # a thumbs down says more than "not chosen"
TEXT_WEIGHT = 0.25  # the text model's share of the blend
# Background papers to train with (drawn from the newest): more than the text
# model's 300 help a little (on the tuning topics nDCG@10 0.576 -> 0.588,
# recall@10 0.634 -> 0.640) and cost little: the solve is 384 x 384 whatever
# their number.
EMBEDDING_BACKGROUND = 1000


@dataclass
class EmbeddingModel:
    weights: np.ndarray  # float32, one per embedding dimension
    intercept: float
    text_weight: float = TEXT_WEIGHT  # the text model's share when the two are blended

    def score(self, vectors: np.ndarray) -> np.ndarray:
        """Background units: 0 is the typical background paper."""
        return np.asarray(vectors, dtype=np.float32) @ self.weights + np.float32(self.intercept)

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(
            buffer,
            weights=self.weights,
            intercept=np.float32(self.intercept),
            text_weight=np.float32(self.text_weight),
        )
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> EmbeddingModel:
        stored = np.load(io.BytesIO(bytes(data)))
        text_weight = float(stored["text_weight"]) if "text_weight" in stored else TEXT_WEIGHT
        return cls(stored["weights"].astype(np.float32), float(stored["intercept"]), text_weight)


def fit_embedding_model(
    positives: np.ndarray,
    negatives: np.ndarray,
    background: np.ndarray,
    *,
    positive_weights: np.ndarray | None = None,
    ridge: float = RIDGE,
) -> EmbeddingModel:
    """Liked papers against disliked ones and a background sample (rows of
    unit-length vectors; `positive_weights` lets recent saves count more)."""
    if not len(positives) or not len(background):
        raise ValueError("an embedding model needs at least one positive and one background paper")
    positives, negatives, background = (np.asarray(m, dtype=np.float64) for m in (positives, negatives, background))
    dimension = positives.shape[1]
    negatives = negatives.reshape(-1, dimension)
    centre = background.mean(axis=0)
    rows = np.vstack([positives, negatives, background]) - centre
    targets = np.r_[np.ones(len(positives)), -np.ones(len(negatives) + len(background))]
    weights = np.r_[
        np.ones(len(positives)) if positive_weights is None else np.asarray(positive_weights, dtype=np.float64),
        np.full(len(negatives), EMBEDDING_NEGATIVE_WEIGHT),
        np.ones(len(background)),
    ]
    # Balance the classes: a handful of saves against hundreds of others.
    weights[targets > 0] *= weights[targets < 0].sum() / weights[targets > 0].sum()
    # The weighted Gram matrix as one matrix times its own transpose, which
    # numpy hands to BLAS's symmetric product: half the work of rows.T @ (w * rows).
    root = rows * np.sqrt(weights)[:, None]
    coefficients = np.linalg.solve(root.T @ root + ridge * np.eye(dimension), rows.T @ (weights * targets))
    return EmbeddingModel(*_in_background_units(coefficients, -float(centre @ coefficients), background))


def query_model(query: np.ndarray, background: np.ndarray) -> EmbeddingModel:
    """A text embedded as a query (a researcher's description of their
    interests) as a model: its cosine to each paper, in background units."""
    weights, intercept = _in_background_units(np.asarray(query, dtype=np.float64), 0.0, np.asarray(background))
    return EmbeddingModel(weights, intercept)


def mixed(first: EmbeddingModel, second: EmbeddingModel, *, share: float) -> EmbeddingModel:
    """`share` of the second model with the rest of the first (both in background units)."""
    return EmbeddingModel(
        ((1 - share) * first.weights + share * second.weights).astype(np.float32),
        (1 - share) * first.intercept + share * second.intercept,
        first.text_weight,
    )


def _in_background_units(weights: np.ndarray, intercept: float, background: np.ndarray) -> tuple[np.ndarray, float]:
    scores = background @ weights + intercept
    scale = float(scores.std()) or 1.0
    return (weights / scale).astype(np.float32), (intercept - float(scores.mean())) / scale


def in_background_units(scores: np.ndarray, background_scores: np.ndarray) -> np.ndarray:
    """Any model's scores on the scale `fit_embedding_model` uses (for the text model's half)."""
    scale = float(np.std(background_scores)) or 1.0
    return (np.asarray(scores, dtype=np.float32) - float(np.mean(background_scores))) / scale


def blended(embedding_scores: np.ndarray, text_scores: np.ndarray, *, text_weight=TEXT_WEIGHT) -> np.ndarray:
    """The chosen score: both halves in background units (`text_weight` one
    number, or one per column of the scores)."""
    return (1 - text_weight) * embedding_scores + text_weight * text_scores


def score_matrix(models: Sequence[EmbeddingModel], vectors: np.ndarray) -> np.ndarray:
    """Every model's scores of every paper (models x papers), one product."""
    weights = np.stack([model.weights for model in models]).astype(np.float32)
    intercepts = np.array([model.intercept for model in models], dtype=np.float32)
    return weights @ np.asarray(vectors, dtype=np.float32).T + intercepts[:, None]
