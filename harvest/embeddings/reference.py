"""Where a vector sits against the library: the mean and covariance of a
reference set of paper embeddings, so that a topic's similarity to a paper
can be read in standard deviations above the typical paper's (accounts'
topic follows). The reference is the library's newest embedded papers once
it has REFERENCE_MIN of them; before that (a new install, a test), the
statistics shipped for the default model, made from the 1,581 real papers
of tests/fixtures/search_eval by `write_shipped` (from `manage.py shell`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harvest.embeddings.index import model_slug
from harvest.embeddings.services import from_bytes
from harvest.models import PaperEmbedding, StoredVector

REFERENCE_PAPERS = 2000
REFERENCE_MIN = 500
SHIPPED = Path(__file__).resolve().parent / "reference_data"


@dataclass(frozen=True)
class ReferenceStatistics:
    mean: np.ndarray  # the reference vectors' mean
    covariance: np.ndarray
    papers: int

    @classmethod
    def of(cls, vectors: np.ndarray) -> ReferenceStatistics:
        vectors = np.asarray(vectors, dtype=np.float64)
        if len(vectors) < 2:
            dimension = vectors.shape[1] if vectors.ndim == 2 else 0
            return cls(np.zeros(dimension), np.zeros((dimension, dimension)), len(vectors))
        return cls(vectors.mean(axis=0), np.cov(vectors, rowvar=False), len(vectors))

    def similarity_spread(self, vector: np.ndarray) -> tuple[float, float]:
        """The mean and standard deviation of the reference papers' dot
        products with `vector` (exactly: μ·v and √(vᵀΣv))."""
        if self.papers < 2:
            return 0.0, 1.0
        vector = np.asarray(vector, dtype=np.float64)
        variance = float(vector @ self.covariance @ vector)
        return float(self.mean @ vector), max(variance, 1e-12) ** 0.5


def reference_statistics(
    *, model: str, dimension: int, table: type[StoredVector] = PaperEmbedding
) -> ReferenceStatistics:
    """The newest embeddings of `table` (the papers' by default); for papers
    the shipped statistics while the library has fewer than REFERENCE_MIN.
    Readings have none shipped: their statistics are of what exists."""
    rows = table.objects.filter(model=model).order_by("-paper_id").values_list("vector", flat=True)[:REFERENCE_PAPERS]
    vectors = [from_bytes(data, dimension) for data in rows]
    if len(vectors) < REFERENCE_MIN and table is PaperEmbedding:
        shipped = SHIPPED / f"{model_slug(model)}.npz"
        if shipped.exists():
            with np.load(shipped) as data:
                return ReferenceStatistics(data["mean"], data["covariance"], int(data["papers"]))
    return ReferenceStatistics.of(np.vstack(vectors) if vectors else np.zeros((0, dimension)))


def write_shipped(source: Path, model: str) -> Path:
    """Write the shipped statistics of `model` from a collection's cached
    vectors (tests/fixtures/search_eval/vectors-<model>.npz)."""
    with np.load(source) as data:
        vectors = data["vectors"].astype(np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    stats = ReferenceStatistics.of(vectors)
    SHIPPED.mkdir(exist_ok=True)
    target = SHIPPED / f"{model_slug(model)}.npz"
    np.savez_compressed(
        target,
        mean=stats.mean.astype(np.float32),
        covariance=stats.covariance.astype(np.float32),
        papers=np.int64(stats.papers),
    )
    return target
