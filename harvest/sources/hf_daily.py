"""Hugging Face Daily Papers: community picks with upvotes.

`GET HF_DAILY_PAPERS_URL?date=YYYY-MM-DD` returns a JSON array of items; in
each, `paper.id` is the arXiv id without version, `paper.upvotes` the upvotes
so far and `paper.submittedOnDailyAt` the day it was featured (the recorded
shape is in tests/fixtures/hf_daily/). A check asks for each day of its window
(an incremental check: yesterday and today, UTC, since a day's list grows
until it ends), one page per day.

A pick can be stored only for a paper in the library, so papers the library
does not hold yet are looked up through the arXiv API in one batched id_list
request and travel in the same page as the picks.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import arxiv
from django.conf import settings
from django.utils import timezone

from harvest.models import Paper
from harvest.source_records import MalformedRecord, PaperRecord, split_arxiv_id
from harvest.sources import arxiv_api
from harvest.sources.base import Page, PickRecord, SourceClient, Window
from harvest.sources.http import PermanentError

logger = logging.getLogger(__name__)

PAPER_URL = "https://huggingface.co/papers/{}"
# A window longer than this is refused rather than sent as hundreds of requests.
MAX_DAYS = 400


@dataclass
class DailyPage:
    picks: list[PickRecord] = field(default_factory=list)
    skipped: int = 0


def _featured_on(paper: dict, day: date | None) -> date:
    value = paper.get("submittedOnDailyAt")
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC).date()
        except ValueError as exc:
            raise MalformedRecord(f"bad submittedOnDailyAt {value!r}") from exc
    if day is None:
        raise MalformedRecord("no submittedOnDailyAt")
    return day


def parse_pick(item: object, *, day: date | None = None) -> PickRecord:
    """One Daily Papers item as a PickRecord; MalformedRecord if unusable."""
    paper = item.get("paper") if isinstance(item, dict) else None
    if not isinstance(paper, dict):
        raise MalformedRecord("no paper object")
    raw_id = paper.get("id")
    if not isinstance(raw_id, str):
        raise MalformedRecord("no paper id")
    arxiv_id, _ = split_arxiv_id(raw_id)
    upvotes = paper.get("upvotes", 0)
    if not isinstance(upvotes, int) or isinstance(upvotes, bool) or upvotes < 0:
        raise MalformedRecord(f"{arxiv_id}: bad upvotes {upvotes!r}")
    return PickRecord(
        arxiv_id=arxiv_id,
        featured_on=_featured_on(paper, day),
        upvotes=upvotes,
        url=PAPER_URL.format(arxiv_id),
    )


def parse_daily_papers(body: bytes, *, day: date | None = None) -> DailyPage:
    """Parse one Daily Papers reply. A malformed item is logged and counted as
    skipped; a reply that is not a JSON array raises PermanentError."""
    try:
        items = json.loads(body)
    except ValueError as exc:
        raise PermanentError(f"unparsable Hugging Face Daily Papers reply: {exc}") from exc
    if not isinstance(items, list):
        raise PermanentError(f"Hugging Face Daily Papers reply is a JSON {type(items).__name__}, not an array")
    page = DailyPage()
    by_id: dict[str, PickRecord] = {}
    for index, item in enumerate(items):
        try:
            pick = parse_pick(item, day=day)
        except MalformedRecord as exc:
            page.skipped += 1
            logger.warning("skipped Daily Papers item %d: %s", index, exc)
            continue
        earlier = by_id.get(pick.arxiv_id)
        if earlier is None or pick.upvotes > earlier.upvotes:
            by_id[pick.arxiv_id] = pick
    page.picks = list(by_id.values())
    return page


def days_for(window: Window, today: date) -> list[date]:
    """The days a check asks for: yesterday and today for an incremental check,
    else every day of the window (an open end is today; an open start is the
    end)."""
    if window.is_incremental:
        return [today - timedelta(days=1), today]
    last = window.date_until or today
    first = window.date_from or last
    if (last - first).days >= MAX_DAYS:
        raise PermanentError(f"window {first}..{last} is longer than {MAX_DAYS} days; split it")
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _utc_today() -> date:
    return timezone.now().astimezone(UTC).date()


class HfDailySource(SourceClient):
    slug = "hf_daily"
    name = "Hugging Face Daily Papers"

    def __init__(
        self,
        *,
        base_url: str | None = None,
        arxiv_client: arxiv.Client | None = None,
        today: Callable[[], date] = _utc_today,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url or settings.HF_DAILY_PAPERS_URL
        self.arxiv_client = arxiv_client
        self.today = today

    def pages(self, *, window: Window, source_checkpoint: dict, resume: dict) -> Iterator[Page]:
        done = resume.get("done", "")
        for day in days_for(window, self.today()):
            if day.isoformat() <= done:
                continue
            response = self.http.get(
                self.base_url, params={"date": day.isoformat()}, max_bytes=settings.HF_DAILY_MAX_BYTES
            )
            daily = parse_daily_papers(response.content, day=day)
            records = self._papers_to_add(daily.picks)
            yield Page(records=records, picks=daily.picks, skipped=daily.skipped, checkpoint={"done": day.isoformat()})

    def _papers_to_add(self, picks: list[PickRecord]) -> list[PaperRecord]:
        """The picked papers the library lacks, looked up on arXiv in one request
        per hundred ids; a paper arXiv does not return stays unpicked (logged)."""
        wanted = [pick.arxiv_id for pick in picks]
        known = set(Paper.objects.filter(arxiv_id__in=wanted).values_list("arxiv_id", flat=True))
        missing = [arxiv_id for arxiv_id in wanted if arxiv_id not in known]
        if not missing:
            return []
        client = self.arxiv_client or arxiv_api.make_client()
        self.arxiv_client = client
        records = arxiv_api.lookup_ids(missing, client=client)
        unresolved = set(missing) - {record.arxiv_id for record in records}
        if unresolved:
            logger.warning("arXiv does not return %d picked papers: %s", len(unresolved), sorted(unresolved)[:10])
        return records
