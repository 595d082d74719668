"""Reading one version's full text from arXiv: its HTML rendering first, the
PDF where there is none, through the harvest's one HTTP wrapper
(`PoliteSession`: one request at a time `ARXIV_REQUEST_DELAY` apart, a
descriptive User-Agent, `Retry-After` honoured on 429/503, a cap on decoded
bytes and a deadline per reply), with conditional requests for a version read
before.

Every way it can fail ends as one `FetchFailure` naming what happened in a
word (`kind`, put in words on /sources/), whether trying again later may help
(`retry`), and the exception text (for staff).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from harvest.fulltext.document import Document
from harvest.fulltext.html_parser import NotAConversion, parse_html
from harvest.fulltext.pdf_parser import PdfTooSlow, UnreadablePdf, parse_pdf
from harvest.sources.http import LimitError, PoliteSession, SourceError


@dataclass(frozen=True)
class Fetched:
    origin: str
    # None: the server answered 304, the stored text stands.
    document: Document | None
    etag: str = ""
    last_modified: str = ""


class FetchFailure(Exception):
    """Kinds: too_large, too_slow, unreadable, no_text, not_found, refused,
    rate_limited, unavailable."""

    def __init__(self, kind: str, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.kind = kind
        self.retry = retry


def make_session(**overrides) -> PoliteSession:
    options = {
        "delay": settings.ARXIV_REQUEST_DELAY,
        "user_agent": settings.PAPERTRAIL_FULLTEXT_USER_AGENT,
        "max_bytes": settings.PAPERTRAIL_FULLTEXT_MAX_BYTES,
        "deadline": settings.PAPERTRAIL_FULLTEXT_SECONDS,
        # A 503 or 429 with a short Retry-After is waited out twice; a long one
        # ends the run (the version is tried again later).
        "max_retries": 2,
        **overrides,
    }
    return PoliteSession(**options)


def _failure(error: SourceError, what: str) -> FetchFailure:
    message = f"{what}: {error}"
    if isinstance(error, LimitError):
        kind = "too_slow" if "still arriving" in str(error) else "too_large"
        # The same file will be as large (or as slow) tomorrow: not retried.
        return FetchFailure(kind, message, retry=False)
    if error.status in (429, 503):
        return FetchFailure("rate_limited", message, retry=True)
    if error.transient:
        return FetchFailure("unavailable", message, retry=True)
    if error.status in (404, 410):
        return FetchFailure("not_found", message, retry=False)
    return FetchFailure("refused", message, retry=False)


def _conditional(etag: str, last_modified: str) -> dict[str, str]:
    headers = {}
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    return headers


def _validators(response) -> tuple[str, str]:
    return response.headers.get("ETag", ""), response.headers.get("Last-Modified", "")


def fetch_full_text(
    session: PoliteSession,
    *,
    arxiv_id: str,
    number: int,
    origin: str = "",
    etag: str = "",
    last_modified: str = "",
) -> Fetched:
    """The parsed text of `<arxiv_id>v<number>`. `origin`, `etag` and
    `last_modified` are what a previous read stored: its source is asked
    conditionally."""
    ident = f"{arxiv_id}v{number}"
    html_headers = _conditional(etag, last_modified) if origin == "html" else {}
    try:
        response = session.get(f"{settings.PAPERTRAIL_ARXIV_HTML_URL}/{ident}", headers=html_headers or None)
    except SourceError as error:
        if error.status not in (404, 410):
            raise _failure(error, "HTML") from error
    else:
        if response.status_code == 304:
            return Fetched("html", None, etag, last_modified)
        try:
            return Fetched("html", parse_html(response.content), *_validators(response))
        except NotAConversion:
            pass  # arXiv's page but not a rendering of the paper: the PDF then
    pdf_headers = _conditional(etag, last_modified) if origin == "pdf" else {}
    try:
        response = session.get(f"{settings.PAPERTRAIL_ARXIV_PDF_URL}/{ident}", headers=pdf_headers or None)
    except SourceError as error:
        raise _failure(error, "PDF") from error
    if response.status_code == 304:
        return Fetched("pdf", None, etag, last_modified)
    if not response.content.startswith(b"%PDF"):
        raise FetchFailure("unreadable", f"PDF: the reply from {response.url} is not a PDF", retry=False)
    try:
        document = parse_pdf(
            response.content,
            max_pages=settings.PAPERTRAIL_FULLTEXT_MAX_PAGES,
            seconds=settings.PAPERTRAIL_FULLTEXT_SECONDS,
        )
    except PdfTooSlow as exc:
        raise FetchFailure("too_slow", f"PDF: {exc}", retry=False) from exc
    except UnreadablePdf as exc:
        kind = "no_text" if "no extractable text" in str(exc) else "unreadable"
        raise FetchFailure(kind, f"PDF: {exc}", retry=False) from exc
    return Fetched("pdf", document, *_validators(response))
