"""Nearest neighbours among the stored embeddings (PostgreSQL, or SQLite under
`make run`, is the source of truth).

Two parts, read together by every search:
- the base: a usearch HNSW index in a file under PAPERTRAIL_VAR_DIR/vectors/
  (8-bit, cosine), built from the database by `build_index` (the embedding
  task, `manage.py embed_papers --index`) and opened memory-mapped, so every
  web worker on a machine shares one copy through the page cache; a new web
  node builds its own from the database;
- the delta: the embeddings stored after the base's watermark, read from the
  database into each process (a few thousand rows between two builds) and
  scored exactly. A library without a base (a small one, a test) is all delta.
A paper re-embedded after the watermark is scored by its delta vector only.
Each table of vectors keyed by paper has an index of its own: the papers'
(PaperEmbedding) and their Chinese guided readings' (ReadingEmbedding).
docs/scaling.md says how this grows and where pgvector would take over.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import Q
from usearch.index import Index

from harvest.embeddings.services import from_bytes
from harvest.models import PaperEmbedding, StoredVector
from papertrail.libraries import library_slug

VectorTable = type[StoredVector]

# Delta rows past which the embedding task folds them into the base: every web
# worker holds the delta in memory as float32 (docs/decisions.md, "The index file stays 8-bit").
REBUILD_AT = 10_000
_READ_CHUNK = 5000


def index_directory() -> Path:
    """One folder per database, so that a test database never reads the
    development library's index."""
    return Path(settings.VAR_DIR) / "vectors" / library_slug(connection.settings_dict["NAME"])


def model_slug(model: str) -> str:
    """A model name as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", model)


def file_stem(model: str, table: VectorTable = PaperEmbedding) -> str:
    """The index files' name: the model's, and the table's unless it is the papers' own."""
    suffix = "" if table is PaperEmbedding else "-readings"
    return f"{model_slug(model)}{suffix}"


@dataclass
class Watermark:
    at: datetime | None = None
    paper_id: int = 0

    def after(self) -> Q:
        """Embeddings stored after this mark (time, then paper id)."""
        if self.at is None:
            return Q()
        return Q(embedded_at__gt=self.at) | Q(embedded_at=self.at, paper_id__gt=self.paper_id)

    def as_json(self) -> list:
        return [self.at.isoformat() if self.at else None, self.paper_id]

    @classmethod
    def of_json(cls, value: list) -> Watermark:
        return cls(datetime.fromisoformat(value[0]) if value[0] else None, int(value[1]))


@dataclass
class _Delta:
    mark: Watermark = field(default_factory=Watermark)
    ids: list[int] = field(default_factory=list)
    rows: dict[int, int] = field(default_factory=dict)  # paper id -> row
    vectors: np.ndarray | None = None


class VectorIndex:
    """The base and the delta of one model's embeddings in one table."""

    def __init__(
        self, model: str, dimension: int, directory: Path | None = None, *, table: VectorTable = PaperEmbedding
    ) -> None:
        self.model = model
        self.dimension = dimension
        self.table = table
        self.directory = directory or index_directory()
        self.path = self.directory / f"{file_stem(model, table)}.usearch"
        self.manifest_path = self.directory / f"{file_stem(model, table)}.json"
        self._base: Index | None = None
        self._base_stamp: float | None = None
        self._base_mark = Watermark()
        self._delta = _Delta()
        self._lock = threading.Lock()

    # --- reading ---------------------------------------------------------------
    def search(self, query: np.ndarray, k: int, *, exclude: frozenset[int] = frozenset()) -> list[tuple[int, float]]:
        """The `k` nearest papers to `query` (cosine similarity, highest first)."""
        with self._lock:
            self._open_base()
            delta = self._refresh_delta()
            base = self._base
        found: dict[int, float] = {}
        if base is not None and len(base):
            matches = base.search(np.asarray(query, dtype=np.float32), min(len(base), k + len(exclude) + 16))
            for key, distance in zip(matches.keys, matches.distances, strict=True):
                paper_id = int(key)
                if paper_id not in delta.rows and paper_id not in exclude:
                    found[paper_id] = 1.0 - float(distance)
        if delta.vectors is not None and len(delta.ids):
            scores = delta.vectors @ np.asarray(query, dtype=np.float32)
            top = np.argsort(-scores)[: k + len(exclude)]
            for row in top:
                paper_id = delta.ids[row]
                if paper_id not in exclude:
                    found[paper_id] = float(scores[row])
        return sorted(found.items(), key=lambda item: (-item[1], -item[0]))[:k]

    def size(self) -> int:
        with self._lock:
            self._open_base()
            delta = self._refresh_delta()
            base = len(self._base) if self._base is not None else 0
        return base + len(delta.ids)

    def _open_base(self) -> None:
        try:
            stamp = self.manifest_path.stat().st_mtime
        except FileNotFoundError:
            stamp = None
        if stamp == self._base_stamp:
            return
        self._base, self._base_stamp, self._base_mark = None, stamp, Watermark()
        if stamp is not None:
            manifest = json.loads(self.manifest_path.read_text())
            if manifest.get("model") == self.model and manifest.get("dimension") == self.dimension:
                self._base = Index.restore(str(self.path), view=True)
                self._base_mark = Watermark.of_json(manifest["watermark"])
        self._delta = _Delta(mark=self._base_mark)

    def _refresh_delta(self) -> _Delta:
        # One indexed read a search, of the rows stored since this process's
        # last one (none, almost always): a search never misses a paper the
        # embedding task has just stored.
        delta = self._delta
        rows = list(
            self.table.objects.filter(delta.mark.after(), model=self.model)
            .order_by("embedded_at", "paper_id")
            .values_list("paper_id", "vector", "embedded_at")
        )
        if rows:
            vectors = [] if delta.vectors is None else list(delta.vectors)
            ids = list(delta.ids)
            positions = dict(delta.rows)
            for paper_id, data, _ in rows:
                vector = from_bytes(data, self.dimension)
                if paper_id in positions:
                    vectors[positions[paper_id]] = vector
                else:
                    positions[paper_id] = len(ids)
                    ids.append(paper_id)
                    vectors.append(vector)
            last = rows[-1]
            delta = _Delta(Watermark(last[2], last[0]), ids, positions, np.vstack(vectors).astype(np.float32))
        self._delta = delta
        return delta


def vector_of(paper_id: int, *, model: str, dimension: int) -> np.ndarray | None:
    data = PaperEmbedding.objects.filter(paper_id=paper_id, model=model).values_list("vector", flat=True).first()
    return None if data is None else from_bytes(data, dimension)


def vectors_of(
    papers, *, model: str, dimension: int, limit: int | None = None, table: VectorTable = PaperEmbedding
) -> tuple[list[int], np.ndarray]:
    """The stored vectors of these papers (ids, or a queryset of papers read
    in the same statement), those that have one, at most `limit`."""
    ids: list[int] = []
    vectors: list[np.ndarray] = []
    rows = table.objects.filter(paper_id__in=papers, model=model).order_by()
    if limit is not None:
        rows = rows[:limit]
    for paper_id, data in rows.values_list("paper_id", "vector").iterator(chunk_size=_READ_CHUNK):
        ids.append(paper_id)
        vectors.append(from_bytes(data, dimension))
    return ids, (np.vstack(vectors) if vectors else np.zeros((0, dimension), dtype=np.float32))


# --- writing (the embedding task and the command) -------------------------------------
def build_index(
    *,
    model: str,
    dimension: int,
    directory: Path | None = None,
    force: bool = False,
    table: VectorTable = PaperEmbedding,
) -> int:
    """Fold the delta into the base once it is large (or always, `force`):
    the base is loaded, the delta's papers replaced, and the file swapped
    atomically; readers pick it up by its manifest. Returns the base's size,
    or -1 when nothing was rebuilt."""
    directory = directory or index_directory()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{file_stem(model, table)}.usearch"
    manifest_path = directory / f"{file_stem(model, table)}.json"
    mark = _manifest_mark(model, directory, table)
    if mark.at is None or not path.exists():
        base, mark = Index(ndim=dimension, metric="cos", dtype="i8"), Watermark()
    else:
        if not force and table.objects.filter(mark.after(), model=model).count() < REBUILD_AT:
            return -1
        base = Index.restore(str(path))
    rows = table.objects.filter(mark.after(), model=model).order_by("embedded_at", "paper_id")
    batch_ids: list[int] = []
    batch: list[np.ndarray] = []
    last = mark
    for paper_id, data, at in rows.values_list("paper_id", "vector", "embedded_at").iterator(chunk_size=_READ_CHUNK):
        batch_ids.append(paper_id)
        batch.append(from_bytes(data, dimension))
        last = Watermark(at, paper_id)
        if len(batch) == _READ_CHUNK:
            _add(base, batch_ids, batch)
            batch_ids, batch = [], []
    _add(base, batch_ids, batch)
    temporary = path.with_suffix(".usearch.tmp")
    base.save(str(temporary))
    os.replace(temporary, path)
    manifest = {"model": model, "dimension": dimension, "size": len(base), "watermark": last.as_json()}
    temporary_manifest = manifest_path.with_suffix(".json.tmp")
    temporary_manifest.write_text(json.dumps(manifest))
    os.replace(temporary_manifest, manifest_path)
    return len(base)


def _add(base: Index, ids: list[int], vectors: list[np.ndarray]) -> None:
    if not ids:
        return
    present = [paper_id for paper_id in ids if paper_id in base]
    if present:
        base.remove(present)
    base.add(np.asarray(ids, dtype=np.uint64), np.vstack(vectors).astype(np.float32))


def _manifest_mark(model: str, directory: Path, table: VectorTable = PaperEmbedding) -> Watermark:
    manifest_path = directory / f"{file_stem(model, table)}.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except FileNotFoundError:
        return Watermark()
    return Watermark.of_json(manifest["watermark"]) if manifest.get("model") == model else Watermark()
