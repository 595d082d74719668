"""The bundle's embeddings ship beside it: a fresh library gets them with the
papers (so `make run` searches by meaning at once), only where a paper's text
is the one they were made from and only for the configured model; the file is
what the real models make of the bundle's text."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from harvest.embeddings.encoders import get_encoder, model_name
from harvest.embeddings.passages import passage_text, text_hash
from harvest.models import Paper, PaperEmbedding
from harvest.offline.loader import load_bundle
from harvest.offline.shipped_vectors import store_shipped_vectors, vectors_file, write_shipped_vectors
from tests.factories import record, store

pytestmark = pytest.mark.django_db
AT = datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.fixture(autouse=True)
def own_vector_index(settings, tmp_path):
    """No vector index of this process outlives the test's rolled-back rows."""
    settings.VAR_DIR = tmp_path


def embed_by_hand(papers: list[Paper], model: str) -> dict[int, bytes]:
    vectors = {}
    for index, paper in enumerate(papers):
        vector = np.zeros(8, dtype="<f2")
        vector[index] = 1
        vectors[paper.pk] = vector.tobytes()
        PaperEmbedding.objects.create(
            paper=paper,
            model=model,
            vector=vectors[paper.pk],
            text_hash=text_hash(passage_text(paper.title, paper.abstract)),
        )
    return vectors


def test_a_written_file_is_stored_back_only_where_the_text_and_the_model_are_the_same(tmp_path):
    store(*[record(f"2611.0000{n}", title=f"Paper {n}", abstract=f"Abstract {n}.") for n in range(1, 4)], at=AT)
    papers = list(Paper.objects.order_by("arxiv_id"))
    vectors = embed_by_hand(papers, "model-a")
    assert write_shipped_vectors(model="model-a", bundle_dir=tmp_path) == 3
    assert vectors_file("model-a", tmp_path).exists()

    PaperEmbedding.objects.all().delete()
    Paper.objects.filter(pk=papers[2].pk).update(abstract="A revised abstract.")
    assert store_shipped_vectors(model="model-b", bundle_dir=tmp_path) == 0
    assert store_shipped_vectors(model="model-a", bundle_dir=tmp_path) == 2
    stored = {row.paper_id: bytes(row.vector) for row in PaperEmbedding.objects.filter(model="model-a")}
    assert stored == {papers[0].pk: vectors[papers[0].pk], papers[1].pk: vectors[papers[1].pk]}


def test_a_fresh_library_gets_the_real_models_vectors_of_the_bundle():
    load_bundle()
    model = model_name()
    papers = Paper.objects.count()
    shipped = PaperEmbedding.objects.filter(model=model)
    # Every paper of the bundle but those whose text the loader's order changes.
    assert shipped.count() >= 0.99 * papers
    sampled = list(shipped.select_related("paper").order_by("paper__arxiv_id")[:: max(1, papers // 5)])
    # One batch: the model's vectors of a batch are those of each passage alone, for half the CPU.
    vectors = get_encoder().embed_passages([passage_text(e.paper.title, e.paper.abstract) for e in sampled])
    for embedding, computed in zip(sampled, vectors, strict=True):
        stored = np.frombuffer(bytes(embedding.vector), dtype="<f2").astype(np.float32)
        cosine = float(computed @ stored / np.linalg.norm(stored) / np.linalg.norm(computed))
        assert cosine > 0.99, embedding.paper.arxiv_id
