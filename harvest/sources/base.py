"""The small interface every source implements.

A source turns a request window and a resumption point into a stream of pages.
Each page carries the records it parsed and the checkpoint *after* it, so the
runner (harvest/runs.py) can store a page and its checkpoint in one transaction
and a run killed at any moment resumes from its last stored page.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.utils import timezone

from harvest.source_records import FeedAnnouncement, PaperRecord
from harvest.sources.http import PoliteSession


@dataclass(slots=True)
class PickRecord:
    """A community signal about one paper (Hugging Face Daily Papers)."""

    arxiv_id: str
    featured_on: date
    upvotes: int = 0
    url: str = ""


@dataclass(slots=True)
class Page:
    records: list[PaperRecord]
    checkpoint: dict[str, Any]
    skipped: int = 0
    deleted: int = 0
    picks: list[PickRecord] = field(default_factory=list)
    # "<record>: <why>" of each record skipped as malformed, logged by the
    # runner: a parser reading ahead in another process logs nothing itself.
    malformed: list[str] = field(default_factory=list)
    # Set by the announcement feed: the page is stored by
    # harvest.announcements, which also records what the feed listed.
    announcement: FeedAnnouncement | None = None


@dataclass(frozen=True, slots=True)
class Window:
    """What a run asks for. Both ends empty: an incremental run from the
    source's own checkpoint."""

    date_from: date | None = None
    date_until: date | None = None

    @property
    def is_incremental(self) -> bool:
        return self.date_from is None and self.date_until is None

    def as_dict(self) -> dict[str, str | None]:
        return {
            "from": self.date_from.isoformat() if self.date_from else None,
            "until": self.date_until.isoformat() if self.date_until else None,
        }


def first_run_start() -> date | None:
    """Where a source with no checkpoint starts: PAPERTRAIL_FIRST_RUN_DAYS
    back (0: from the source's beginning), so a new site fills its recent
    days in minutes instead of walking arXiv's whole history first."""
    days = settings.PAPERTRAIL_FIRST_RUN_DAYS
    return timezone.now().date() - timedelta(days=days) if days else None


class SourceClient(ABC):
    slug: ClassVar[str]
    name: ClassVar[str]
    # Set when pages() only fetches and parses: no database, no change to the
    # run, the source or anything else of the caller's. The harvest then
    # fetches and parses the next page while it stores the current one
    # (harvest/readahead.py): in a thread (READ_AHEAD_THREAD) or, for a
    # parser that holds the GIL for long, in a process (READ_AHEAD_PROCESS).
    pages_read_ahead: str | None = None

    def __init__(self, *, http: PoliteSession | None = None, retries: int | None = None) -> None:
        """`retries`: how often a failed request is tried again in this
        process (default PAPERTRAIL_HTTP_MAX_RETRIES); the Celery task asks
        none and retries itself later instead (harvest.tasks.run_source)."""
        self.http = http or PoliteSession(max_retries=retries)
        self.retries = retries

    @abstractmethod
    def pages(self, *, window: Window, source_checkpoint: dict, resume: dict) -> Iterator[Page]:
        """Yield pages in order. `resume` is the checkpoint of the last stored
        page of an unfinished run ({} for a fresh run); `source_checkpoint` is
        what the last completed run left for the next one."""

    def completed_checkpoint(self, *, window: Window, source_checkpoint: dict, run_checkpoint: dict) -> dict:
        """What the source keeps for the next run once this run completed."""
        return source_checkpoint
