"""The bundle's embeddings, shipped beside it (`vectors-<model>.npz`), so
that a fresh `make run` searches by meaning, matches topic follows and orders
"for you" from its first minutes: embedding the bundle's ~6,800 papers with
the default models takes 10 to 20 minutes of a 2-core machine.

A shipped vector is stored only for a paper whose text is the one it was made
from (the same `text_hash` the embedding task keeps), and only for the model
the library is configured with; everything else waits for the embedding task
as usual. `manage.py load_offline_bundle --write-vectors` writes the file
again from a library that embedded the bundle (a new model, a changed bundle).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from django.utils import timezone

from harvest.embeddings.encoders import model_name
from harvest.embeddings.index import model_slug
from harvest.embeddings.passages import passage_text, text_hash
from harvest.models import Paper, PaperEmbedding

BUNDLE_DIR = Path(__file__).resolve().parent


def vectors_file(model: str, bundle_dir: Path = BUNDLE_DIR) -> Path:
    return bundle_dir / f"vectors-{model_slug(model)}.npz"


def store_shipped_vectors(*, model: str | None = None, bundle_dir: Path = BUNDLE_DIR) -> int:
    """Store the shipped vectors that fit the library's papers; how many were stored."""
    model = model or model_name()
    path = vectors_file(model, bundle_dir)
    if not path.exists():
        return 0
    with np.load(path) as shipped:
        arxiv_ids = [str(arxiv_id) for arxiv_id in shipped["arxiv_ids"]]
        hashes = [str(value) for value in shipped["text_hashes"]]
        vectors = shipped["vectors"].astype("<f2")
    position = {arxiv_id: row for row, arxiv_id in enumerate(arxiv_ids)}
    now = timezone.now()
    rows = []
    papers = Paper.objects.filter(arxiv_id__in=arxiv_ids).values_list("pk", "arxiv_id", "title", "abstract")
    for paper_id, arxiv_id, title, abstract in papers.iterator(chunk_size=2000):
        row = position[arxiv_id]
        shipped_hash = text_hash(passage_text(title, abstract))
        if shipped_hash == hashes[row]:
            rows.append(
                PaperEmbedding(
                    paper_id=paper_id,
                    model=model,
                    vector=vectors[row].tobytes(),
                    text_hash=shipped_hash,
                    embedded_at=now,
                )
            )
    PaperEmbedding.objects.bulk_create(rows, batch_size=1000, ignore_conflicts=True)
    return len(rows)


def write_shipped_vectors(*, model: str | None = None, bundle_dir: Path = BUNDLE_DIR) -> int:
    """Write the library's embeddings by `model` as the bundle's vectors file; how many."""
    model = model or model_name()
    rows = list(
        PaperEmbedding.objects.filter(model=model)
        .order_by("paper__arxiv_id")
        .values_list("paper__arxiv_id", "text_hash", "vector")
    )
    if not rows:
        return 0
    np.savez_compressed(
        vectors_file(model, bundle_dir),
        arxiv_ids=np.array([arxiv_id for arxiv_id, _, _ in rows]),
        text_hashes=np.array([value for _, value, _ in rows]),
        vectors=np.stack([np.frombuffer(bytes(vector), dtype="<f2") for _, _, vector in rows]),
    )
    return len(rows)
