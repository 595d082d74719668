"""The evaluation's papers and topics: the search evaluation collection of
tests/fixtures/search_eval (1,581 real recorded papers, information needs
judged by reading, docs/recommendations.md), with each paper's embedding
(the cached passage vectors), its hashed text features and its month.

The collection keeps no dates, so a paper's month is read from its arXiv id
(new style `YYMM.NNNNN`, old style `archive/YYMMNNN`): the month its first
version was submitted, real but coarse."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
from scipy import sparse

from accounts.recommend.features import PaperText, vectorize
from harvest.embeddings.encoders import Encoder, get_encoder
from harvest.search_evaluation import Collection, passage_vectors

_NEW_ID = re.compile(r"^(\d{2})(\d{2})\.(\d{4,5})$")
_OLD_ID = re.compile(r"^[a-z\-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})(\d{3})$")


def submitted(arxiv_id: str) -> tuple[datetime, int]:
    """The month an arXiv id was given (first day, UTC), and its number within
    the month, which grows with time: together they order papers by age."""
    found = _NEW_ID.match(arxiv_id) or _OLD_ID.match(arxiv_id)
    if found is None:
        raise ValueError(f"not an arXiv id: {arxiv_id!r}")
    year, month, number = (int(part) for part in found.groups())
    year += 1900 if year >= 91 else 2000
    return datetime(year, month, 1, tzinfo=UTC), number


@dataclass(frozen=True)
class Topic:
    id: str
    relevant: dict[int, int]  # paper index -> grade (2 squarely on the topic, 1 partly)

    @property
    def squarely(self) -> list[int]:
        return sorted(index for index, grade in self.relevant.items() if grade == 2)


@dataclass
class EvaluationData:
    papers: list[PaperText]  # id is the arXiv id; extra["published"], extra["number"]
    embeddings: np.ndarray  # float32, one unit-length row per paper
    topics: list[Topic]
    _features: sparse.csr_matrix | None = None

    @property
    def features(self) -> sparse.csr_matrix:
        """Today's hashed text features (features.py), computed on first use."""
        if self._features is None:
            self._features = vectorize(self.papers)
        return self._features

    @property
    def ages(self) -> np.ndarray:
        """A number that grows with each paper's submission date."""
        return np.array(
            [p.extra["published"].year * 12 + p.extra["published"].month + p.extra["number"] / 1e6 for p in self.papers]
        )


def load_evaluation_data(collection: Collection | None = None, encoder: Encoder | None = None) -> EvaluationData:
    """The collection with its cached passage vectors (embedded again only if
    the cache is missing or stale)."""
    collection = collection or Collection.load()
    embeddings = passage_vectors(collection, encoder or get_encoder())
    papers = []
    for paper in collection.papers:
        month, number = submitted(paper["arxiv_id"])
        papers.append(
            PaperText(
                id=paper["arxiv_id"],
                title=paper["title"],
                abstract=paper["abstract"],
                categories=list(paper["categories"]),
                extra={"published": month, "number": number},
            )
        )
    position = {paper.id: index for index, paper in enumerate(papers)}
    topics = [
        Topic(need.id, {position[arxiv_id]: grade for arxiv_id, grade in need.relevant.items() if grade > 0})
        for need in collection.needs
    ]
    return EvaluationData(papers, np.ascontiguousarray(embeddings, dtype=np.float32), topics)
