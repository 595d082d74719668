"""Reads of the full-text domain: the queue and its failures for /sources/,
and a version's stored text for the readings and answers that will use it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Min, Q, Sum

from harvest.fulltext.document import Document
from harvest.fulltext.models import FullText

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
