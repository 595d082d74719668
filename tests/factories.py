"""Test data for every app: papers and versions stored through the real upsert
service, plain ORM rows for sources, runs, community picks, guided readings and
recorded announcements."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from django.utils import timezone

from digests.models import GuidedReading
from digests.selectors import current_prompt_version
from harvest.completeness import latest_expected_announcement, listing_day, submission_window
from harvest.models import Announcement, AnnouncementItem, CommunityPick, HarvestRun, Paper, Source, Version
from harvest.search_index import index_pending_papers
from harvest.services import UpsertResult, paper_upsert_many
from harvest.source_records import PaperRecord, VersionRecord

NOW = datetime(2026, 11, 13, 0, 31, tzinfo=UTC)  # 2026-11-13 08:31 Beijing time


def record(
    arxiv_id: str,
    *,
    title: str | None = None,
    abstract: str = "An abstract.",
    authors: list[str] | None = None,
    categories: list[str] | None = None,
    comments: str = "",
    versions: int = 1,
    first_submitted: datetime | None = None,
    version_gap: timedelta = timedelta(days=7),
) -> PaperRecord:
    """A paper record with `versions` versions, v1 at `first_submitted`. By
    default the latest version is a day old, and `store` or the trail tests'
    `harvest` date it an hour before they store it: a paper stored at a time
    is new then (one arXiv dated long before it was stored is archival, and
    windows count arXiv's dates: harvest.badges)."""
    first = first_submitted or timezone.now() - timedelta(days=1) - version_gap * (versions - 1)
    kind = PaperRecord if first_submitted else DatedWhenStored
    return kind(
        arxiv_id=arxiv_id,
        title=title or f"Paper {arxiv_id}",
        abstract=abstract,
        authors=authors if authors is not None else ["Ada Lovelace", "Alan Turing"],
        categories=categories if categories is not None else ["cs.LG"],
        comments=comments,
        versions=[
            VersionRecord(number=n, submitted=first + version_gap * (n - 1), size=f"{100 + n}kb", source_type="D")
            for n in range(1, versions + 1)
        ],
    )


class DatedWhenStored(PaperRecord):
    """A `record` made without a date: `stored_dated` dates it by its store time."""


def stored_dated(records: Iterable[PaperRecord], at: datetime) -> list[PaperRecord]:
    """The records, those made without a date dated as new at `at` (version gaps kept)."""
    records = list(records)
    for paper_record in records:
        if isinstance(paper_record, DatedWhenStored) and paper_record.versions:
            shift = at - timedelta(hours=1) - paper_record.versions[-1].submitted
            for version in paper_record.versions:
                version.submitted += shift
    return records


def dated_by_harvest(records: list[PaperRecord], at: datetime) -> list[PaperRecord]:
    """Recorded papers re-dated as a harvest at `at` would bring them new: each
    latest version submitted an hour before, earlier ones a week apart (their
    recorded dates are years old, and windows count arXiv's dates)."""
    for paper_record in records:
        latest = max((version.number for version in paper_record.versions), default=1)
        for version in paper_record.versions:
            version.submitted = at - timedelta(hours=1) - timedelta(days=7) * (latest - version.number)
        paper_record.published = paper_record.updated = None  # the versions' dates stand
    return records


def latest_listing() -> date:
    """arXiv's latest listing by its schedule, now."""
    return listing_day(latest_expected_announcement())


def submitted_for_listing(day: date) -> datetime:
    """A submission time that arXiv's listing dated `day` announces as new."""
    return submission_window(day)[1] - timedelta(hours=1)


def store(*records: PaperRecord, at: datetime) -> UpsertResult:
    """Store as a harvest at `at` would (included_at / discovered_at = at),
    then index the papers for full-text search as the task after a run does."""
    result = paper_upsert_many(records=stored_dated(records, at), now=at)
    index_pending_papers()
    return result


def paper(arxiv_id: str) -> Paper:
    return Paper.objects.get(arxiv_id=arxiv_id)


def version(arxiv_id: str, number: int) -> Version:
    return Version.objects.get(paper__arxiv_id=arxiv_id, number=number)


def source(slug: str = "arxiv", name: str | None = None, *, enabled: bool = True, checkpoint: dict | None = None):
    return Source.objects.create(
        slug=slug, name=name or slug, enabled=enabled, checkpoint=checkpoint if checkpoint is not None else {}
    )


def run(
    src: Source,
    *,
    started_at: datetime,
    status: str = HarvestRun.Status.OK,
    finished_at: datetime | None = None,
    error: str = "",
    **counts: int,
) -> HarvestRun:
    finished = finished_at if finished_at is not None else started_at + timedelta(minutes=2)
    return HarvestRun.objects.create(
        source=src,
        started_at=started_at,
        finished_at=None if status == HarvestRun.Status.RUNNING else finished,
        status=status,
        error=error,
        **counts,
    )


def announcement(day: date, listed: list[tuple[str, int]], *, feed: str = "cs") -> Announcement:
    """One recorded announcement listing these (arxiv id, version) pairs."""
    recorded = Announcement.objects.create(feed=feed, announced_on=day)
    AnnouncementItem.objects.bulk_create(
        AnnouncementItem(announcement=recorded, arxiv_id=arxiv_id, version=number, announce_type="new")
        for arxiv_id, number in listed
    )
    return recorded


def pick(p: Paper, src: Source, *, upvotes: int = 10, url: str = "", featured_on: date | None = None):
    return CommunityPick.objects.create(
        paper=p, source=src, upvotes=upvotes, url=url, featured_on=featured_on or date(2026, 11, 12)
    )


def reading(
    v: Version,
    *,
    written_at: datetime | None,
    status: str = GuidedReading.Status.DONE,
    text: str = "要点",
    takeaway: str | None = None,
    zh_takeaway: str | None = None,
    provider: str = "anthropic",
    model: str = "claude-test",
) -> GuidedReading:
    """A reading whose sections say `text` and the section's name; `takeaway`
    and `zh_takeaway` set the English and Chinese one-line takeaways."""
    body = {key: f"{text} {key}" for key in ("takeaway", "problem", "method", "results", "limitations")}
    english = {key: f"EN {value}" for key, value in body.items()}
    if takeaway is not None:
        english["takeaway"] = takeaway
    if zh_takeaway is not None:
        body["takeaway"] = zh_takeaway
    return GuidedReading.objects.create(
        version=v,
        prompt_version=current_prompt_version(),
        status=status,
        provider=provider,
        model=model,
        content={"zh": body, "en": english} if written_at else {},
        written_at=written_at,
        input_tokens=100,
        output_tokens=50,
        cost_usd=Decimal("0.01"),
    )


def many_papers(count: int, *, at: datetime, start: int = 1, abstract: str = "An abstract.") -> None:
    """`count` papers with distinct update times, all stored at `at`."""
    first = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    store(
        *[
            record(
                f"2610.{start + i:05d}",
                abstract=abstract,
                first_submitted=first + timedelta(hours=i),
                categories=["cs.LG", "cs.CL"],
            )
            for i in range(count)
        ],
        at=at,
    )
