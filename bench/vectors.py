"""Random unit vectors for bench papers, written as the embedding pass writes
them: the bench library has none, and training and scoring read them."""

from __future__ import annotations

import random

import numpy as np
from django.db import connection
from django.utils import timezone

from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.services import to_bytes
from harvest.models import PaperEmbedding

_BLOCK = 5000


def write_vectors(paper_ids: list[int], rng: random.Random) -> int:
    """Random unit vectors for these papers (those without one yet), by COPY, then ANALYZE."""
    encoder = get_encoder()
    have = set(PaperEmbedding.objects.filter(paper_id__in=paper_ids).values_list("paper_id", flat=True))
    missing = sorted(set(paper_ids) - have)
    draw = np.random.default_rng(rng.randrange(2**32))
    now = timezone.now()
    with connection.cursor() as cursor:
        statement = "COPY harvest_paperembedding (paper_id, model, vector, text_hash, embedded_at) FROM STDIN"
        with cursor.cursor.copy(statement) as copy:
            for start in range(0, len(missing), _BLOCK):
                chunk = missing[start : start + _BLOCK]
                block = draw.standard_normal((len(chunk), encoder.dimension)).astype(np.float32)
                block /= np.linalg.norm(block, axis=1, keepdims=True)
                for paper_id, vector in zip(chunk, block, strict=True):
                    copy.write_row((paper_id, encoder.name, to_bytes(vector), "bench", now))
        cursor.execute("ANALYZE harvest_paperembedding")
    return len(missing)
