"""Reads of the full-text domain: the queue and its failures for /sources/,
a version's stored text for the readings that use it, and the passages of
versions nearest a question for the answers that cite them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import quote

import numpy as np
from django.conf import settings
from django.db.models import Count, Exists, Min, OuterRef, Q, Sum

from harvest.embeddings.encoders import get_encoder, model_name
from harvest.embeddings.selectors import query_vector
from harvest.embeddings.services import from_bytes
from harvest.fulltext.document import Document
from harvest.fulltext.models import FullText, Passage

RECENT_FAILURES = 20


@dataclass(frozen=True)
class Failure:
    arxiv_id: str
    number: int
    kind: str
    error: str
    attempts: int
    at: datetime


@dataclass(frozen=True)
class FullTextStatus:
    waiting: int = 0
    fetching: int = 0
    from_html: int = 0
    from_pdf: int = 0
    failed: int = 0
    retrying: int = 0
    oldest_waiting: datetime | None = None
    stored_bytes: int = 0
    failures: list[Failure] = field(default_factory=list)

    @property
    def read(self) -> int:
        return self.from_html + self.from_pdf


def full_text_status() -> FullTextStatus:
    """Counts by state (one grouped query) and the latest failures."""
    totals = FullText.objects.aggregate(
        waiting=Count("id", filter=Q(status=FullText.Status.WAITING)),
        retrying=Count("id", filter=Q(status=FullText.Status.WAITING, attempts__gt=0)),
        fetching=Count("id", filter=Q(status=FullText.Status.FETCHING)),
        from_html=Count("id", filter=Q(status=FullText.Status.DONE, origin=FullText.Origin.HTML)),
        from_pdf=Count("id", filter=Q(status=FullText.Status.DONE, origin=FullText.Origin.PDF)),
        failed=Count("id", filter=Q(status=FullText.Status.FAILED)),
        oldest_waiting=Min("requested_at", filter=Q(status=FullText.Status.WAITING)),
        stored_bytes=Sum("stored_bytes", filter=Q(status=FullText.Status.DONE), default=0),
    )
    failures = [
        Failure(arxiv_id, number, kind, error, attempts, at)
        for arxiv_id, number, kind, error, attempts, at in FullText.objects.exclude(failure="")
        .order_by("-next_attempt_at", "-id")
        .values_list("version__paper__arxiv_id", "version__number", "failure", "error", "attempts", "next_attempt_at")[
            :RECENT_FAILURES
        ]
    ]
    return FullTextStatus(**totals, failures=failures)


def full_text_document(*, version_id: int) -> Document | None:
    """The parsed full text of a version, when it has been read."""
    blob = (
        FullText.objects.filter(version_id=version_id, status=FullText.Status.DONE)
        .values_list("document", flat=True)
        .first()
    )
    return Document.decompress(blob) if blob else None


@dataclass(frozen=True)
class FoundPassage:
    version_id: int
    position: int
    section: str
    anchor: str
    page: int | None
    heading: str
    text: str
    score: float


def nearest_passages(*, version_ids: Iterable[int], question: str, per_version: int) -> dict[int, list[FoundPassage]]:
    """Each version's `per_version` passages nearest the question by the
    search model (exact dot products: a context holds a few papers' hundred
    passages each), best first; a version without passages is absent."""
    rows = list(
        Passage.objects.filter(version_id__in=set(version_ids), model=model_name())
        .order_by("version_id", "position")
        .values_list("version_id", "position", "section", "anchor", "page", "heading", "text", "vector")
    )
    if not rows or per_version <= 0:
        return {}
    encoder = get_encoder()
    vectors = np.vstack([from_bytes(row[-1], encoder.dimension) for row in rows])
    scores = vectors @ query_vector(question)
    found: dict[int, list[FoundPassage]] = {}
    for row in np.argsort(-scores, kind="stable"):
        version_id, position, section, anchor, page, heading, text, _ = rows[row]
        best = found.setdefault(version_id, [])
        if len(best) < per_version:
            best.append(FoundPassage(version_id, position, section, anchor, page, heading, text, float(scores[row])))
    return found


def versions_awaiting_passages(*, version_ids: Iterable[int]) -> list[int]:
    """Of these versions, those whose full text is read but not yet cut into
    passages by the configured model."""
    embedded = Passage.objects.filter(version_id=OuterRef("version_id"), model=model_name())
    rows = FullText.objects.filter(version_id__in=set(version_ids), status=FullText.Status.DONE, text_chars__gt=0)
    return sorted(rows.filter(~Exists(embedded)).values_list("version_id", flat=True))


def passages_of(*, arxiv_id: str, version: int, positions: Iterable[int]) -> list[str]:
    """These passages of a version as a context gives them (heading, then
    text), in document order."""
    rows = Passage.objects.filter(
        version__paper__arxiv_id=arxiv_id, version__number=version, position__in=set(positions)
    ).order_by("position")
    return [f"{heading}: {text}" if heading else text for heading, text in rows.values_list("heading", "text")]


def section_url(*, arxiv_id: str, version: int, anchor: str = "", page: int | None = None) -> str:
    """Where arXiv opens a version at a section: its HTML rendering at the
    LaTeXML anchor, or the PDF at the page (a text read from the PDF)."""
    if anchor:
        return f"{settings.PAPERTRAIL_ARXIV_HTML_URL}/{arxiv_id}v{version}#{quote(anchor, safe='.-_')}"
    if page:
        return f"{settings.PAPERTRAIL_ARXIV_PDF_URL}/{arxiv_id}v{version}#page={int(page)}"
    return f"{settings.PAPERTRAIL_ARXIV_HTML_URL}/{arxiv_id}v{version}"
