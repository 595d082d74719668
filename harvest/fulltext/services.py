"""Writes of the full-text domain: asking for a version's full text, and a
run that reads the waiting ones from arXiv and records each outcome.

Other apps ask through `request_full_text` (accounts for saved papers, "for
you" and a paper someone opens; portal for a paper someone asks about);
harvest never reads their data. A failure is recorded on its version once:
one that may pass (arXiv busy, no connection) is tried again later, at most
`MAX_ATTEMPTS` times, and one that will not (too large, too slow, no such
file) is final.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from harvest.embeddings.encoders import Encoder, get_encoder
from harvest.embeddings.passages import text_hash
from harvest.embeddings.services import CHUNK, to_bytes
from harvest.fulltext.chunks import chunks
from harvest.fulltext.document import Document
from harvest.fulltext.fetching import Fetched, FetchFailure, fetch_full_text, make_session
from harvest.fulltext.models import FullText, Passage
from harvest.fulltext.selectors import full_text_document
from harvest.models import Paper, Version
from harvest.signals import full_text_stored
from harvest.sources.http import PoliteSession

logger = logging.getLogger(__name__)

# Someone waiting for the answer first, then the day's selections.
PRIORITY = {
    FullText.Reason.ASKED: 1,
    FullText.Reason.OPENED: 1,
    FullText.Reason.SAVED: 3,
    FullText.Reason.FOR_YOU: 5,
    FullText.Reason.POPULAR: 6,
}
MAX_ATTEMPTS = 3
RETRY_DELAYS = (timedelta(hours=1), timedelta(hours=6))
# A text read this long ago is asked for again (conditionally: usually a 304)
# when it is requested, since arXiv re-renders HTML as its converter improves.
REFRESH_AFTER = timedelta(days=30)
# A claim older than this was lost with its worker: waiting again.
STALE_CLAIM = timedelta(hours=1)


@dataclass
class BatchOutcome:
    read: int = 0
    unchanged: int = 0
    failed: int = 0
    retry_later: int = 0
    stopped_by_rate_limit: bool = False

    def summary(self) -> str:
        text = f"{self.read} read, {self.unchanged} unchanged, {self.failed} failed, {self.retry_later} to retry"
        return text + (" (arXiv asked us to slow down: stopped)" if self.stopped_by_rate_limit else "")


@transaction.atomic
def request_full_text(*, version_ids: Iterable[int], reason: str, now: datetime | None = None) -> int:
    """Wants the full text of these versions for `reason`; returns how many
    were queued (new, or a stale text to refresh). A failed version stays
    failed: asking again does not start a loop."""
    now = now or timezone.now()
    reason = FullText.Reason(reason)
    priority = PRIORITY[reason]
    ids = set(version_ids)
    if not ids:
        return 0
    existing = {row.version_id: row for row in FullText.objects.select_for_update().filter(version_id__in=ids)}
    valid = set(Version.objects.filter(id__in=ids - existing.keys()).values_list("id", flat=True))
    FullText.objects.bulk_create(
        [
            FullText(version_id=vid, reasons=[reason], priority=priority, requested_at=now, next_attempt_at=now)
            for vid in sorted(valid)
        ],
        ignore_conflicts=True,
    )
    queued = len(valid)
    for row in existing.values():
        fields = []
        if reason not in row.reasons:
            row.reasons = [*row.reasons, reason]
            fields.append("reasons")
        if priority < row.priority:
            row.priority = priority
            fields.append("priority")
        if row.status == FullText.Status.DONE and row.fetched_at and row.fetched_at < now - REFRESH_AFTER:
            row.status, row.next_attempt_at = FullText.Status.WAITING, now
            fields += ["status", "next_attempt_at"]
            queued += 1
        if fields:
            row.save(update_fields=fields)
    return queued


def request_latest_full_texts(*, paper_ids: Iterable[int], reason: str, now: datetime | None = None) -> int:
    """`request_full_text` for the latest version of each paper and, for a
    revision, the version before it: its reading's "what changed" is a
    section diff of the two texts."""
    latest = F("paper__latest_version")
    version_ids = Version.objects.filter(
        Q(number=latest) | Q(number=latest - 1), paper_id__in=set(paper_ids)
    ).values_list("id", flat=True)
    return request_full_text(version_ids=list(version_ids), reason=reason, now=now)


def request_popular(*, limit: int, now: datetime | None = None) -> int:
    """The day's most popular papers (the library's popular sort: the
    stored popularity of papers updated within its window), latest version."""
    if limit <= 0:
        return 0
    now = now or timezone.now()
    since = now - timedelta(days=settings.PAPERTRAIL_POPULAR_WINDOW_DAYS)
    papers = Paper.objects.filter(updated__gte=since, popularity__gt=0).order_by("-popularity", "-id")[:limit]
    return request_latest_full_texts(
        paper_ids=list(papers.values_list("id", flat=True)), reason=FullText.Reason.POPULAR, now=now
    )


def _claim(limit: int, now: datetime) -> list[FullText]:
    FullText.objects.filter(status=FullText.Status.FETCHING, next_attempt_at__lt=now - STALE_CLAIM).update(
        status=FullText.Status.WAITING
    )
    ids = list(
        FullText.objects.filter(status=FullText.Status.WAITING, next_attempt_at__lte=now)
        .order_by("priority", "requested_at", "id")
        .values_list("id", flat=True)[:limit]
    )
    claimed = FullText.objects.filter(id__in=ids, status=FullText.Status.WAITING)
    claimed.update(status=FullText.Status.FETCHING, next_attempt_at=now)
    return list(
        FullText.objects.filter(id__in=ids, status=FullText.Status.FETCHING)
        .select_related("version__paper")
        .order_by("priority", "requested_at", "id")
    )


def _store(row: FullText, fetched: Fetched, now: datetime) -> None:
    row.status, row.fetched_at, row.failure, row.error = FullText.Status.DONE, now, "", ""
    row.attempts = 0
    fields = ["status", "fetched_at", "failure", "error", "attempts"]
    if fetched.document is not None:
        fields += _put_document(row, fetched.document, fetched.origin)
    row.etag, row.last_modified = fetched.etag, fetched.last_modified
    row.save(update_fields=[*fields, "etag", "last_modified"])
    if fetched.document is not None:
        _announce([row.version_id])


def store_document(*, version: Version, document: Document, now: datetime | None = None) -> FullText:
    """Stores a text read elsewhere (a recorded rendering, a bulk load) as the
    version's full text, exactly as a fetched one is stored."""
    row, _ = FullText.objects.get_or_create(version=version)
    row.status, row.fetched_at, row.failure, row.error = FullText.Status.DONE, now or timezone.now(), "", ""
    fields = ["status", "fetched_at", "failure", "error", *_put_document(row, document, document.origin)]
    row.save(update_fields=fields)
    _announce([row.version_id])
    return row


def _put_document(row: FullText, document: Document, origin: str) -> list[str]:
    blob = document.compress()
    row.document, row.stored_bytes, row.text_chars = blob, len(blob), document.text_chars
    row.origin = origin
    # The licence arXiv states on the HTML page; for a PDF, the one its
    # metadata gives for the paper (the same statement, from the listing).
    row.licence = document.licence or row.version.paper.license
    # A new text makes its old passages wrong: they wait to be cut again.
    Passage.objects.filter(version_id=row.version_id).delete()
    return ["document", "stored_bytes", "text_chars", "origin", "licence"]


def _announce(version_ids: list[int]) -> None:
    transaction.on_commit(lambda: full_text_stored.send(sender=FullText, version_ids=version_ids))


def record_failure(row: FullText, failure: FetchFailure, now: datetime) -> bool:
    """Records one failed attempt; True when the version will be tried again."""
    row.attempts += 1
    row.failure, row.error = failure.kind, str(failure)[:2000]
    again = failure.retry and row.attempts < MAX_ATTEMPTS
    row.status = FullText.Status.WAITING if again else FullText.Status.FAILED
    row.next_attempt_at = now + RETRY_DELAYS[min(row.attempts, len(RETRY_DELAYS)) - 1] if again else now
    row.save(update_fields=["attempts", "failure", "error", "status", "next_attempt_at"])
    logger.info("full text of version %d: %s (%s)", row.version_id, failure.kind, "again later" if again else "final")
    return again


def fetch_waiting(
    *, limit: int | None = None, session: PoliteSession | None = None, now: datetime | None = None
) -> BatchOutcome:
    """Reads up to `limit` waiting versions, one request at a time."""
    now = now or timezone.now()
    session = session or make_session()
    outcome = BatchOutcome()
    rows = _claim(limit or settings.PAPERTRAIL_FULLTEXT_BATCH, now)
    for index, row in enumerate(rows):
        version = row.version
        try:
            fetched = fetch_full_text(
                session,
                arxiv_id=version.paper.arxiv_id,
                number=version.number,
                origin=row.origin if row.document else "",
                etag=row.etag if row.document else "",
                last_modified=row.last_modified if row.document else "",
            )
        except FetchFailure as failure:
            if record_failure(row, failure, now):
                outcome.retry_later += 1
            else:
                outcome.failed += 1
            if failure.kind == "rate_limited":
                # arXiv asked for a pause: the rest of the run waits for the next one.
                rest = [r.id for r in rows[index + 1 :]]
                FullText.objects.filter(id__in=rest).update(status=FullText.Status.WAITING, next_attempt_at=now)
                outcome.stopped_by_rate_limit = True
                break
            continue
        _store(row, fetched, timezone.now())
        if fetched.document is None:
            outcome.unchanged += 1
        else:
            outcome.read += 1
    return outcome


def versions_without_passages(*, model: str, limit: int) -> list[int]:
    """Versions whose full text is read but not cut into passages embedded by
    `model`, most recently read first."""
    embedded = Passage.objects.filter(version_id=OuterRef("version_id"), model=model)
    rows = FullText.objects.filter(status=FullText.Status.DONE, text_chars__gt=0).filter(~Exists(embedded))
    return list(
        rows.order_by(F("fetched_at").desc(nulls_last=True), "-id").values_list("version_id", flat=True)[:limit]
    )


def store_passages(*, version_id: int, encoder: Encoder | None = None) -> int:
    """Cuts a version's full text into passages, embeds them with the search
    model and stores them in place of its old ones; the number stored (0 when
    nothing changed, or there is no text)."""
    document = full_text_document(version_id=version_id)
    if document is None:
        return 0
    encoder = encoder or get_encoder()
    cut = chunks(document)
    hashes = [text_hash(chunk.embedded_text) for chunk in cut]
    stored = list(Passage.objects.filter(version_id=version_id).order_by("position").values_list("text_hash", "model"))
    if stored == [(value, encoder.name) for value in hashes]:
        return 0
    texts = [chunk.embedded_text for chunk in cut]
    vectors = [
        vector
        for start in range(0, len(texts), CHUNK)
        for vector in encoder.embed_passages(texts[start : start + CHUNK])
    ]
    now = timezone.now()
    rows = [
        Passage(
            version_id=version_id,
            position=chunk.position,
            section=chunk.section[:64],
            anchor=chunk.anchor[:128],
            page=chunk.page,
            heading=chunk.heading[:300],
            text=chunk.text,
            model=encoder.name,
            vector=to_bytes(vector),
            text_hash=value,
            embedded_at=now,
        )
        for chunk, vector, value in zip(cut, vectors, hashes, strict=True)
    ]
    with transaction.atomic():
        Passage.objects.filter(version_id=version_id).delete()
        Passage.objects.bulk_create(rows)
    return len(rows)
