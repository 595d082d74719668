"""The one door to Zotero's Web API v3: pyzotero's client (the endpoint from
settings, an explicit timeout), with its failures turned into three error
types and its rate-limit handling taken over.

pyzotero 1.6.11 sleeps in-process on `Backoff`/`Retry-After` (a timer thread
per response) and, on a 429, returns the error response to the caller
instead of raising. A sync runs in a Celery task: it must neither sleep nor
read a 429 as data. So `_set_backoff` here raises `ZoteroBackoff` on a 429 and
only records the delay on a success (the sync stops after that step and is
scheduled again when the delay is over, `ZoteroLink.backoff_until`), and
`_check_backoff` never sleeps."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import httpx
from django.conf import settings
from pyzotero import zotero, zotero_errors

logger = logging.getLogger(__name__)

PAGE = 100  # the API's largest page
WRITE_BATCH = 50  # the API's most objects in one write
DEFAULT_BACKOFF = 60.0  # a 429 that names no delay


class ZoteroError(Exception):
    """A failure, in words the researcher can read (never the key)."""

    permanent = False


class ZoteroRefused(ZoteroError):
    """401/403/404: the key, its rights or the library are wrong; retrying does not help."""

    permanent = True


class ZoteroBackoff(ZoteroError):
    """429 (or a Backoff header): wait `seconds` before the next request."""

    def __init__(self, seconds: float):
        super().__init__(f"Zotero asked to wait {seconds:.0f} s")
        self.seconds = seconds


@dataclass
class Page:
    items: list[dict]
    version: int  # Last-Modified-Version of the response
    total: int


class _Client(zotero.Zotero):
    backoff_seconds: float = 0.0

    def _set_backoff(self, duration) -> None:
        seconds = float(duration)
        if self.request is not None and self.request.status_code == 429:
            raise ZoteroBackoff(seconds)
        self.backoff_seconds = max(self.backoff_seconds, seconds)

    def _check_backoff(self) -> None:
        return


class ZoteroClient:
    def __init__(self, *, library_type: str, library_id: int, api_key: str):
        self._zot = _Client(str(library_id), library_type, api_key)
        self._zot.endpoint = settings.ZOTERO_API_URL.rstrip("/")
        self._zot.client.timeout = httpx.Timeout(30.0)
        self.prefix = f"/{library_type}s/{library_id}"

    @property
    def backoff_seconds(self) -> float:
        """A delay Zotero asked for on a successful response (0 when none)."""
        return self._zot.backoff_seconds

    def _call(self, fn, *args, **kwargs):
        if self._zot.backoff_seconds:
            # Backoff on an earlier response: no further request in this run.
            raise ZoteroBackoff(self._zot.backoff_seconds)
        try:
            return fn(*args, **kwargs)
        except ZoteroBackoff:
            raise
        except zotero_errors.TooManyRetriesError:
            raise ZoteroBackoff(DEFAULT_BACKOFF) from None
        except (zotero_errors.UserNotAuthorisedError, zotero_errors.ResourceNotFoundError) as error:
            raise ZoteroRefused(_first_line(error)) from None
        except zotero_errors.PyZoteroError as error:
            raise ZoteroError(_first_line(error)) from None
        except httpx.HTTPError as error:
            raise ZoteroError(f"Zotero could not be reached ({type(error).__name__})") from None

    def key_access(self) -> dict:
        """What the key may do (GET /keys/current: the key in a header, not the URL)."""
        return self._call(lambda: self._zot._retrieve_data("/keys/current").json())

    def collections(self) -> list[tuple[str, str]]:
        found, start = [], 0
        while True:
            page = self._call(self._zot.collections, start=start, limit=PAGE)
            found += [(c["key"], c["data"]["name"]) for c in page]
            start += len(page)
            if len(page) < PAGE:
                return sorted(found, key=lambda pair: pair[1].casefold())

    def collection_items(self, collection_key: str, *, since: int = 0, start: int = 0, trashed: bool = False) -> Page:
        """A page of the collection's items changed since `since`; with `trashed`, the items in
        Zotero's trash too (`data.deleted` set), which a sync reads as deleted there."""
        extra = {"includeTrashed": 1} if trashed else {}
        items = self._call(self._zot.collection_items, collection_key, since=since, start=start, limit=PAGE, **extra)
        headers = self._zot.request.headers
        return Page(
            items=list(items),
            version=int(headers.get("last-modified-version") or 0),
            total=int(headers.get("total-results") or len(items)),
        )

    def notes(self, *, since: int, start: int = 0) -> Page:
        """A page of the library's notes changed since `since`, the trashed ones too (a note is
        a child item: asked of the whole library by `itemType`, not of the collection)."""
        notes = self._call(self._zot.items, itemType="note", since=since, start=start, limit=PAGE, includeTrashed=1)
        headers = self._zot.request.headers
        return Page(
            items=list(notes),
            version=int(headers.get("last-modified-version") or 0),
            total=int(headers.get("total-results") or len(notes)),
        )

    def deleted_item_keys(self, *, since: int) -> set[str]:
        """The keys of the items deleted for good since that library version (syncing, "Deletions")."""
        answer = self._call(lambda: self._zot._retrieve_data(f"{self.prefix}/deleted", {"since": since}).json())
        return set(answer.get("items") or [])

    def item(self, key: str) -> dict:
        return self._call(self._zot.item, key)

    def write(self, objects: list[dict]) -> dict:
        """POST up to 50 objects: new ones, and existing ones with their `key`
        and `version` (a stale version fails that object with 412). The
        answer's `successful` (key and version of each written object),
        `unchanged` and `failed`, by index. An older server answers `success`
        (keys only): each written object then has the library's new version."""
        answer = self._call(self._zot.create_items, objects)
        version = int(self._zot.request.headers.get("last-modified-version") or 0)
        successful = answer.get("successful") or {}
        answer["successful"] = {
            slot: {"key": key, "version": int(successful.get(slot, {}).get("version") or version)}
            for slot, key in (answer.get("success") or {}).items()
        }
        return answer


def _first_line(error: Exception) -> str:
    # pyzotero's message: "\nCode: 403\nURL: …\nMethod: …\nResponse: …"; keep the code and the response.
    lines = [line for line in str(error).splitlines() if line.startswith(("Code:", "Response:"))]
    return " ".join(lines)[:300] or type(error).__name__
