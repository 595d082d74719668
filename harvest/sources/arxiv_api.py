"""The arXiv search API (Atom), through the `arxiv` package.

Used for lookups by id (Hugging Face picks not yet in the library, back-fill)
and for a check of the newest updates in a query. The package's own client
pages and paces the requests (`delay_seconds` = ARXIV_REQUEST_DELAY) and its
own parser (`arxiv._feed.parse`) reads recorded pages too, so a recorded page
and a live one go through the same code.

What the API tells and what it does not: an entry's id carries the latest
version (`.../abs/2104.12255v3`), `published` is the v1 date and `updated` the
latest version's date; the dates of versions in between are not given. A
record therefore carries the latest version with its date (and v1 with
`published` when the latest is v1); the OAI-PMH harvest fills in the rest.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from datetime import date

import arxiv
import requests
import urllib3
from arxiv import _feed
from django.conf import settings
from lxml import etree

from harvest.readahead import READ_AHEAD_THREAD
from harvest.source_records import (
    MalformedRecord,
    PaperRecord,
    VersionRecord,
    author_affiliations,
    checked,
    clean_abstract,
    clean_line,
    clean_name,
    clean_title,
    split_arxiv_id,
)
from harvest.sources.base import Page, SourceClient, Window
from harvest.sources.http import PermanentError, SourceError, TransientError, read_capped

logger = logging.getLogger(__name__)

# The API's documented limit on one page is far higher; 100 keeps each
# request small and matches the recorded replies.
PAGE_SIZE = 100
_ATOM = "{http://www.w3.org/2005/Atom}"
_ERROR_ID = "arxiv.org/api/errors#"


def _api_error_message(body: bytes) -> str | None:
    """The message of an API error feed (one entry whose id is
    `https://arxiv.org/api/errors#...`), or None for a normal feed."""
    if _ERROR_ID.encode() not in body:
        return None
    try:
        root = etree.fromstring(body, parser=etree.XMLParser(resolve_entities=False, no_network=True))
    except etree.XMLSyntaxError:
        return None
    for entry in root.iterfind(f"{_ATOM}entry"):
        if _ERROR_ID in (entry.findtext(f"{_ATOM}id") or ""):
            return " ".join((entry.findtext(f"{_ATOM}summary") or "unknown error").split())
    return None


def record_from_result(result: arxiv.Result) -> PaperRecord:
    """One `arxiv.Result` as a PaperRecord; MalformedRecord if unusable."""
    arxiv_id, latest = split_arxiv_id(result.get_short_id())
    title = clean_title(result.title)
    if not title:
        raise MalformedRecord(f"{arxiv_id}: no title")
    latest = latest or 1
    version = VersionRecord(number=latest, submitted=result.published if latest == 1 else result.updated)
    categories = [result.primary_category] if result.primary_category else []
    categories.extend(c for c in result.categories if c not in categories)
    named = [author for author in result.authors if author.name.strip()]
    authors = [clean_name(author.name) for author in named]
    record = PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract=clean_abstract(result.summary),
        authors=authors,
        affiliations=author_affiliations(authors, [list(author.affiliation or ()) for author in named]),
        categories=categories,
        comments=clean_line(result.comment),
        journal_ref=clean_line(result.journal_ref),
        doi=" ".join((result.doi or "").split()),
        versions=[version],
        published=result.published,
        updated=result.updated,
    )
    return checked(record)


def records_from_results(results: Iterable[arxiv.Result]) -> tuple[list[PaperRecord], int]:
    """Records and the number of entries skipped as malformed."""
    records, skipped = [], 0
    for result in results:
        try:
            records.append(record_from_result(result))
        except MalformedRecord as exc:
            skipped += 1
            logger.warning("skipped arXiv API entry %s: %s", result.entry_id, exc)
    return records, skipped


def records_from_atom(body: bytes) -> list[PaperRecord]:
    """Parse one recorded (or live) API page. An API error feed or an
    unparsable document raises PermanentError."""
    message = _api_error_message(body)
    if message is not None:
        raise PermanentError(f"arXiv API error: {message}")
    feed = _feed.parse(body)
    if feed.malformed:
        raise PermanentError(f"unparsable arXiv API reply: {feed.error}")
    return records_from_results(feed.results)[0]


class _ApiSession(requests.Session):
    """The session the `arxiv` client sends its requests through: our timeout
    and User-Agent (the package sends neither), the replies' size cap and
    deadline (as every source's), and an early stop on a refused request (4xx
    other than 429), which the package would otherwise retry."""

    def __init__(self) -> None:
        super().__init__()
        self.timeout = settings.HTTP_TIMEOUT

    def request(self, method, url, *args, **kwargs):  # type: ignore[override]
        kwargs.setdefault("timeout", self.timeout)
        kwargs["headers"] = {"User-Agent": settings.HTTP_USER_AGENT}
        kwargs["stream"] = True
        deadline_at = time.monotonic() + settings.HTTP_DEADLINE
        response = super().request(method, url, *args, **kwargs)
        try:
            read_capped(
                response, max_bytes=settings.HTTP_MAX_BYTES, deadline_at=deadline_at, deadline=settings.HTTP_DEADLINE
            )
        except urllib3.exceptions.HTTPError as exc:
            raise TransientError(f"network error: {exc.__class__.__name__}: {exc}") from exc
        finally:
            response.close()
        if 400 <= response.status_code < 500 and response.status_code != 429:
            message = _api_error_message(response.content) or "request refused"
            raise PermanentError(
                f"arXiv API HTTP {response.status_code}: {message} ({url.split('?')[0]})",
                status=response.status_code,
            )
        return response


def make_client(*, base_url: str | None = None, page_size: int = PAGE_SIZE, retries: int | None = None) -> arxiv.Client:
    client = arxiv.Client(
        page_size=page_size,
        delay_seconds=settings.ARXIV_REQUEST_DELAY,
        num_retries=settings.ARXIV_API_RETRIES if retries is None else retries,
    )
    client.query_url_format = f"{base_url or settings.ARXIV_API_URL}?{{}}"
    # The package keeps its session in a private attribute and offers no hook
    # for timeout or User-Agent; `arxiv` is pinned (4.0.2), so this holds.
    client._session = _ApiSession()
    return client


def _mapped(results: Iterator[arxiv.Result]) -> Iterator[arxiv.Result]:
    """The package's failures as the harvest's error types."""
    try:
        yield from results
    except SourceError:
        raise
    except arxiv.HTTPError as exc:
        status = exc.status
        error = TransientError if status == 429 or status >= 500 else PermanentError
        raise error(
            f"arXiv API HTTP {status} after {exc.retry + 1} tries ({exc.url.split('?')[0]})", status=status
        ) from exc
    except arxiv.UnexpectedEmptyPageError as exc:
        raise TransientError(f"arXiv API returned an empty page after {exc.retry + 1} tries") from exc
    except requests.RequestException as exc:
        raise TransientError(f"network error: {exc.__class__.__name__}: {exc}") from exc


def lookup_ids(ids: Iterable[str], *, client: arxiv.Client | None = None) -> list[PaperRecord]:
    """Look papers up by id, up to PAGE_SIZE ids per request. Ids arXiv does
    not know are silently left out by the API, so they are simply missing
    from the result."""
    wanted = list(dict.fromkeys(i.strip() for i in ids if i and i.strip()))
    client = client or make_client()
    records: list[PaperRecord] = []
    for start in range(0, len(wanted), client.page_size):
        chunk = wanted[start : start + client.page_size]
        search = arxiv.Search(id_list=chunk, max_results=len(chunk))
        records.extend(records_from_results(_mapped(client.results(search)))[0])
    return records


def _day(value: date, end: bool) -> str:
    return value.strftime("%Y%m%d") + ("2359" if end else "0000")


class ArxivApiSource(SourceClient):
    """A check of the arXiv API: lookups of given ids, or else the newest
    updates of ARXIV_API_QUERY (sorted by last update, down to what the last
    completed check saw; a dated window asks for papers submitted in it)."""

    slug = "arxiv_api"
    pages_read_ahead = READ_AHEAD_THREAD
    name = "arXiv API"

    def __init__(
        self,
        *,
        ids: Iterable[str] = (),
        query: str | None = None,
        sort_by: arxiv.SortCriterion = arxiv.SortCriterion.LastUpdatedDate,
        max_results: int | None = None,
        page_size: int = PAGE_SIZE,
        base_url: str | None = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.ids = list(ids)
        self.query = query or settings.ARXIV_API_QUERY
        self.sort_by = sort_by
        self.max_results = max_results or settings.ARXIV_API_MAX_RESULTS
        self.client = make_client(base_url=base_url, page_size=page_size, retries=self.retries)

    def pages(self, *, window: Window, source_checkpoint: dict, resume: dict) -> Iterator[Page]:
        if self.ids:
            yield from self._lookup_pages(resume)
        else:
            yield from self._search_pages(window, source_checkpoint, resume)

    def _lookup_pages(self, resume: dict) -> Iterator[Page]:
        size = self.client.page_size
        for start in range(resume.get("offset", 0), len(self.ids), size):
            chunk = self.ids[start : start + size]
            results = _mapped(self.client.results(arxiv.Search(id_list=chunk, max_results=len(chunk))))
            records, skipped = records_from_results(results)
            yield Page(records=records, skipped=skipped, checkpoint={"offset": start + len(chunk)})

    def _search_query(self, window: Window) -> str:
        if window.is_incremental:
            return self.query
        low = _day(window.date_from, end=False) if window.date_from else "000001010000"
        high = _day(window.date_until, end=True) if window.date_until else "999912312359"
        return f"({self.query}) AND submittedDate:[{low} TO {high}]"

    def _search_pages(self, window: Window, source_checkpoint: dict, resume: dict) -> Iterator[Page]:
        offset = resume.get("offset", 0)
        newest = resume.get("newest", "")
        since = source_checkpoint.get("newest", "") if window.is_incremental else ""
        stop_at_since = since and self.sort_by == arxiv.SortCriterion.LastUpdatedDate
        search = arxiv.Search(query=self._search_query(window), max_results=self.max_results, sort_by=self.sort_by)
        batch: list[arxiv.Result] = []
        pages = 0
        for result in _mapped(self.client.results(search, offset=offset)):
            if stop_at_since and result.updated.isoformat() < since:
                break
            batch.append(result)
            if len(batch) == self.client.page_size:
                offset, newest = offset + len(batch), max(newest, _newest(batch))
                yield self._page(batch, offset, newest)
                pages, batch = pages + 1, []
        if batch or not pages:
            # The rest of the last page, or one empty page so that an empty
            # check is recorded as such.
            offset, newest = offset + len(batch), max(newest, _newest(batch))
            yield self._page(batch, offset, newest)

    @staticmethod
    def _page(batch: list[arxiv.Result], offset: int, newest: str) -> Page:
        records, skipped = records_from_results(batch)
        return Page(records=records, skipped=skipped, checkpoint={"offset": offset, "newest": newest})

    def completed_checkpoint(self, *, window: Window, source_checkpoint: dict, run_checkpoint: dict) -> dict:
        """An incremental check of the query leaves the newest update it saw,
        so the next one stops there; lookups and dated windows leave it."""
        if self.ids or not window.is_incremental or not run_checkpoint.get("newest"):
            return source_checkpoint
        return {**source_checkpoint, "newest": max(run_checkpoint["newest"], source_checkpoint.get("newest", ""))}


def _newest(results: list[arxiv.Result]) -> str:
    return max((r.updated.isoformat() for r in results), default="")
