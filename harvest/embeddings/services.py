"""Computing and storing paper embeddings. The task after each harvest page
embeds that page's new or changed papers, then a slice of the backlog, newest
first, so that the last months are searchable first; `manage.py embed_papers`
runs the same pass by hand."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from harvest.embeddings.encoders import Encoder, get_encoder
from harvest.embeddings.passages import passage_text, text_hash
from harvest.models import Paper, PaperEmbedding, ReadingEmbedding, StoredVector

logger = logging.getLogger(__name__)
CHUNK = 32  # passages a model call; larger gains nothing on two cores


@dataclass
class EmbedResult:
    papers: int = 0
    skipped: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.papers / self.seconds if self.seconds else 0.0


def pending_papers(*, model: str, since: datetime | None = None):
    """Papers without an embedding by `model`, newest version first."""
    embedded = PaperEmbedding.objects.filter(paper=OuterRef("pk"), model=model)
    papers = Paper.objects.filter(~Exists(embedded))
    if since is not None:
        papers = papers.filter(updated__gte=since)
    return papers.order_by(F("updated").desc(nulls_last=True), "-id")


def embed_papers(
    *,
    paper_ids: Iterable[int] | None = None,
    since: datetime | None = None,
    limit: int | None = None,
    encoder: Encoder | None = None,
    progress: Callable[[int], None] | None = None,
) -> EmbedResult:
    """Embed these papers (their text changed, or they are new), or the
    pending ones (newest first, `since` and `limit` bounding them)."""
    encoder = encoder or get_encoder()
    if paper_ids is not None:
        papers = Paper.objects.filter(pk__in=list(paper_ids)).order_by("-id")
    else:
        papers = pending_papers(model=encoder.name, since=since)
    if limit is not None:
        papers = papers[:limit]
    result = EmbedResult()
    started = time.monotonic()
    # The ids first, then each chunk's text: no read stays open across the
    # writes, which on SQLite would see another process's commit and fail
    # ("database is locked") when it next writes.
    ids = list(papers.values_list("pk", flat=True))
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        rows = Paper.objects.filter(pk__in=chunk).values_list("pk", "title", "abstract")
        texts = {paper_id: passage_text(title, abstract) for paper_id, title, abstract in rows}
        _store([(paper_id, texts[paper_id]) for paper_id in chunk if paper_id in texts], encoder, result)
        if progress is not None:
            progress(result.papers + result.skipped)
    result.seconds = time.monotonic() - started
    return result


def embed_readings(*, texts: dict[int, str], encoder: Encoder | None = None) -> EmbedResult:
    """Embed the Chinese guided readings' texts, by paper id (the digests app
    gives them; an empty text removes the paper's reading vector)."""
    encoder = encoder or get_encoder()
    result = EmbedResult()
    started = time.monotonic()
    gone = [paper_id for paper_id, text in texts.items() if not text.strip()]
    if gone:
        ReadingEmbedding.objects.filter(paper_id__in=gone).delete()
    batch = [(paper_id, " ".join(text.split())) for paper_id, text in texts.items() if text.strip()]
    for start in range(0, len(batch), CHUNK):
        _store(batch[start : start + CHUNK], encoder, result, table=ReadingEmbedding)
    result.seconds = time.monotonic() - started
    return result


def _store(
    batch: list[tuple[int, str]],
    encoder: Encoder,
    result: EmbedResult,
    *,
    table: type[StoredVector] = PaperEmbedding,
) -> None:
    if not batch:
        return
    hashes = {paper_id: text_hash(text) for paper_id, text in batch}
    current = dict(table.objects.filter(paper_id__in=hashes, model=encoder.name).values_list("paper_id", "text_hash"))
    todo = [(paper_id, text) for paper_id, text in batch if current.get(paper_id) != hashes[paper_id]]
    result.skipped += len(batch) - len(todo)
    if not todo:
        return
    vectors = encoder.embed_passages([text for _, text in todo])
    now = timezone.now()
    rows = [
        table(
            paper_id=paper_id,
            model=encoder.name,
            vector=to_bytes(vector),
            text_hash=hashes[paper_id],
            embedded_at=now,
        )
        for (paper_id, _), vector in zip(todo, vectors, strict=True)
    ]
    table.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["paper"],
        update_fields=["model", "vector", "text_hash", "embedded_at"],
    )
    result.papers += len(rows)


def to_bytes(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f2").tobytes()


def from_bytes(data: bytes | memoryview, dimension: int | None = None) -> np.ndarray:
    vector = np.frombuffer(bytes(data), dtype="<f2").astype(np.float32)
    return vector if dimension is None else vector.reshape(dimension)
