"""The search evaluation (docs/search.md): the real-paper collection of
tests/fixtures/search_eval (papers, information needs in English and Chinese
in three styles, relevance judged by reading) loaded into the library inside
a transaction that is rolled back, every query run through the library's own
search in each mode, and nDCG@10 and recall@20 reported by mode, language
and style.

Embedding 1,581 papers takes minutes on two cores, so their vectors are kept
in a file beside the collection (`vectors-<model>.npy`, float16, in the
papers' order, with the hash of the texts they were made from); a missing or
stale file is computed again. Queries are always embedded live.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, Expression, F, QuerySet
from django.utils import timezone

from harvest.embeddings.encoders import Encoder, get_encoder
from harvest.embeddings.index import build_index
from harvest.embeddings.passages import passage_text, text_hash
from harvest.embeddings.services import to_bytes
from harvest.hybrid import MODES, search
from harvest.models import Paper, PaperEmbedding
from harvest.search_index import index_pending_papers

LANGUAGES = ("en", "zh")
STYLES = ("keywords", "question", "paraphrase")
DEPTH = 20


def collection_dir() -> Path:
    return Path(settings.BASE_DIR) / "tests" / "fixtures" / "search_eval"


@dataclass
class Need:
    id: str
    queries: dict[str, dict[str, str]]
    relevant: dict[str, int]


@dataclass
class Collection:
    papers: list[dict]
    needs: list[Need]
    # Needs the collection has no paper for (the similarity floor's calibration).
    unanswered: list[Need] = field(default_factory=list)

    @classmethod
    def load(cls, directory: Path | None = None) -> Collection:
        """Every need: the first 44 (n01 to n44) and the twenty written Chinese
        first (n45 to n64), which every evaluation reads."""
        directory = directory or collection_dir()
        with (directory / "papers.jsonl").open(encoding="utf-8") as lines:
            papers = [json.loads(line) for line in lines if line.strip()]
        needs = _needs(directory / "needs.json") + _needs(directory / "needs_zh_first.json")
        return cls(papers, needs, _needs(directory / "unanswered_needs.json"))


def _needs(path: Path) -> list[Need]:
    items = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    return [Need(item["id"], item["queries"], item["relevant"]) for item in items]


def ndcg_at(ranked: list[str], relevant: dict[str, int], k: int = 10) -> float:
    """Graded gains (2, 1), log2 discount; the ideal from the judgements."""
    dcg = sum(relevant.get(arxiv_id, 0) / math.log2(rank + 1) for rank, arxiv_id in enumerate(ranked[:k], 1))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal, 1))
    return dcg / best if best else 0.0


def recall_at(ranked: list[str], relevant: dict[str, int], k: int = 20) -> float:
    return len(set(ranked[:k]) & set(relevant)) / len(relevant) if relevant else 0.0


@dataclass
class Report:
    # (mode, language, style) -> per-need scores
    ndcg: dict[tuple[str, str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    recall: dict[tuple[str, str, str], list[float]] = field(default_factory=lambda: defaultdict(list))

    def scores(self, metric: str, mode: str, language: str, style: str | None = None) -> list[float]:
        """Per query; with `style` None, a need's three styles averaged into one
        score, so that the spread is across needs, not across correlated queries."""
        table = self.ndcg if metric == "ndcg" else self.recall
        if style is not None:
            return list(table.get((mode, language, style), []))
        per_style = [table.get((mode, language, s), []) for s in STYLES]
        return [sum(values) / len(values) for values in zip(*per_style, strict=True)] if all(per_style) else []

    def mean(self, metric: str, mode: str, language: str, style: str | None = None) -> float:
        values = self.scores(metric, mode, language, style)
        return sum(values) / len(values) if values else 0.0

    def standard_error(self, metric: str, mode: str, language: str, style: str | None = None) -> float:
        """The standard error of the mean across needs."""
        values = np.asarray(self.scores(metric, mode, language, style))
        return float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else 0.0

    def modes(self) -> list[str]:
        return list(dict.fromkeys(key[0] for key in self.ndcg))

    def table(self) -> str:
        lines = [
            "| mode | language | keywords | question | paraphrase | all (nDCG@10 / recall@20) |",
            "| --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for mode in self.modes():
            for language in LANGUAGES:
                cells = [
                    f"{self.mean('ndcg', mode, language, style):.2f} / {self.mean('recall', mode, language, style):.2f}"
                    for style in STYLES
                ]
                both = f"**{self.mean('ndcg', mode, language):.2f}** / {self.mean('recall', mode, language):.2f}"
                lines.append(f"| {mode} | {language} | {' | '.join(cells)} | {both} |")
        return "\n".join(lines)

    def spread_table(self) -> str:
        """nDCG@10 ± its standard error across needs, by method, language and style."""
        header = " | ".join(f"{language} {style}" for language in LANGUAGES for style in (*STYLES, "all"))
        lines = [f"| method | {header} |", "| --- |" + " ---: |" * (len(LANGUAGES) * (len(STYLES) + 1))]
        for mode in self.modes():
            cells = [
                f"{self.mean('ndcg', mode, language, style):.2f} ± "
                f"{self.standard_error('ndcg', mode, language, style):.2f}"
                for language in LANGUAGES
                for style in (*STYLES, None)
            ]
            lines.append(f"| {mode} | {' | '.join(cells)} |")
        return "\n".join(lines)


class _RolledBack(Exception):
    pass


@contextmanager
def collection_in_library(collection: Collection, vectors: np.ndarray, encoder: Encoder) -> Iterator[dict[str, int]]:
    """The collection's papers stored, indexed and embedded in the library
    for the block only (arXiv id -> paper id); everything is rolled back after."""
    try:
        with transaction.atomic():
            yield _store(collection, vectors, encoder)
            raise _RolledBack
    except _RolledBack:
        pass


def evaluate(
    collection: Collection | None = None,
    *,
    modes: tuple[str, ...] = MODES,
    encoder: Encoder | None = None,
    progress: Callable[[str], None] | None = None,
    through_index: bool = False,
) -> Report:
    """Run every need's six queries in each mode against the collection,
    stored in the library for the run only (rolled back after).
    `through_index`: the vectors folded into an index file first (8-bit, as a
    large library searches them) and the whole library searched through it,
    instead of the collection's float vectors scored exactly; the library
    must then hold the collection alone."""
    collection = collection or Collection.load()
    encoder = encoder or get_encoder()
    vectors = passage_vectors(collection, encoder, progress=progress)
    report = Report()
    with collection_in_library(collection, vectors, encoder) as ids:
        if through_index:
            build_index(model=encoder.name, dimension=encoder.dimension, force=True)
        papers = _collection_papers(list(ids.values()))
        arxiv_of = {pk: arxiv_id for arxiv_id, pk in ids.items()}
        for need in collection.needs:
            for language in LANGUAGES:
                for style in STYLES:
                    text = need.queries[language][style]
                    for mode in modes:
                        found = search(papers, text, mode=mode, narrowed=not through_index)
                        order = found.order_by("-search_rank", "-id").values_list("id", flat=True)[:DEPTH]
                        ranked = [arxiv_of[pk] for pk in order]
                        report.ndcg[(mode, language, style)].append(ndcg_at(ranked, need.relevant))
                        report.recall[(mode, language, style)].append(recall_at(ranked, need.relevant))
            if progress is not None:
                progress(f"need {need.id} done")
    return report


class _AmongIds(Expression):
    """PostgreSQL: the row's id is one of these, given as one array parameter."""

    def __init__(self, ids: list[int]) -> None:
        super().__init__(output_field=BooleanField())
        self.column = F("id")
        self.ids = ids

    def get_source_expressions(self):
        return [self.column]

    def set_source_expressions(self, exprs):
        (self.column,) = exprs

    def as_sql(self, compiler, connection):
        column, params = compiler.compile(self.column)
        return f"{column} = ANY(%s::bigint[])", [*params, self.ids]


def _collection_papers(ids: list[int]) -> QuerySet[Paper]:
    """The collection's papers as the search's filter. On PostgreSQL the ids
    are one array parameter: 1,581 parameters are handled one by one by Django
    and psycopg in each of a search's statements (docs/decisions.md, "Suite time")."""
    if connection.vendor == "postgresql":
        return Paper.objects.filter(_AmongIds(ids))
    return Paper.objects.filter(pk__in=ids)


def passage_vectors(
    collection: Collection, encoder: Encoder, *, progress: Callable[[str], None] | None = None
) -> np.ndarray:
    members = getattr(encoder, "members", None)
    if members:
        # An ensemble's vectors are its members' side by side (EnsembleEncoder):
        # each member's cache serves, and no file of its own is kept.
        parts = [passage_vectors(collection, member, progress=progress) for member in members]
        return (np.hstack(parts) / np.sqrt(len(parts))).astype(np.float32)
    texts = [passage_text(paper["title"], paper["abstract"]) for paper in collection.papers]
    digest = hashlib.blake2b("\n".join(texts).encode(), digest_size=16).hexdigest()
    path = collection_dir() / f"vectors-{re.sub(r'[^A-Za-z0-9_.-]', '_', encoder.name)}.npz"
    if path.exists():
        stored = np.load(path)
        if str(stored["texts"]) == digest:
            return stored["vectors"].astype(np.float32)
    chunks = []
    for start in range(0, len(texts), 64):
        chunks.append(encoder.embed_passages(texts[start : start + 64]))
        if progress is not None:
            progress(f"{min(start + 64, len(texts))} of {len(texts)} papers embedded")
    vectors = np.vstack(chunks)
    np.savez_compressed(path, vectors=vectors.astype(np.float16), texts=np.array(digest))
    return vectors


def _store(collection: Collection, vectors: np.ndarray, encoder: Encoder) -> dict[str, int]:
    """The collection's papers as library rows (those already in the library
    are taken as they are), indexed and embedded."""
    now = timezone.now()
    existing = dict(
        Paper.objects.filter(arxiv_id__in=[p["arxiv_id"] for p in collection.papers]).values_list("arxiv_id", "pk")
    )
    Paper.objects.bulk_create(
        [
            Paper(
                arxiv_id=paper["arxiv_id"],
                title=paper["title"],
                abstract=paper["abstract"],
                categories=paper["categories"],
                primary_category=(paper["categories"] or [""])[0],
                updated=now,
                search_pending=True,
            )
            for paper in collection.papers
            if paper["arxiv_id"] not in existing
        ],
        batch_size=1000,
    )
    ids = dict(
        Paper.objects.filter(arxiv_id__in=[p["arxiv_id"] for p in collection.papers]).values_list("arxiv_id", "pk")
    )
    if connection.vendor == "postgresql":
        index_pending_papers()
    PaperEmbedding.objects.bulk_create(
        [
            PaperEmbedding(
                paper_id=ids[paper["arxiv_id"]],
                model=encoder.name,
                vector=to_bytes(vector),
                text_hash=text_hash(passage_text(paper["title"], paper["abstract"])),
                embedded_at=now,
            )
            for paper, vector in zip(collection.papers, vectors, strict=True)
        ],
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["paper"],
        update_fields=["model", "vector", "text_hash", "embedded_at"],
    )
    return ids
