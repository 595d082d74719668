"""API test data: papers and versions through the real upsert service, plain
ORM rows for sources, runs, community picks and guided readings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from digests.models import GuidedReading
from digests.selectors import current_prompt_version
from harvest.models import CommunityPick, HarvestRun, Source, Version
from harvest.records import PaperRecord, VersionRecord
from harvest.services import paper_upsert_many

V1 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def record(
    arxiv_id: str,
    *,
    title: str | None = None,
    abstract: str = "We study sparse attention over long documents.",
    authors: list[str] | None = None,
    categories: list[str] | None = None,
    versions: int = 1,
    first: datetime = V1,
    comments: str = "",
) -> PaperRecord:
    return PaperRecord(
        arxiv_id=arxiv_id,
        title=title or f"Paper {arxiv_id}",
        abstract=abstract,
        authors=authors if authors is not None else ["Ada Lovelace", "Alan Turing"],
        categories=categories if categories is not None else ["cs.LG"],
        comments=comments,
        versions=[
            VersionRecord(number=n, submitted=first + timedelta(days=7 * (n - 1)), size=f"{100 + n}kb")
            for n in range(1, versions + 1)
        ],
    )


def store(*records: PaperRecord, at: datetime | None = None):
    return paper_upsert_many(records=list(records), now=at)


def many_papers(count: int, *, at: datetime, start: int = 1) -> None:
    """`count` papers with distinct update times, all stored at `at`."""
    store(
        *[
            record(f"2610.{start + i:05d}", first=V1 + timedelta(hours=i), categories=["cs.LG", "cs.CL"])
            for i in range(count)
        ],
        at=at,
    )


def reading(version: Version, *, written_at: datetime, takeaway: str = "A short takeaway.") -> GuidedReading:
    text = {
        "takeaway": takeaway,
        "problem": "Long documents.",
        "method": "Sparse attention.",
        "results": "Same accuracy, less cost.",
        "limitations": "Only English.",
        "changes": "",
    }
    return GuidedReading.objects.create(
        version=version,
        prompt_version=current_prompt_version(),
        status=GuidedReading.Status.DONE,
        model="claude-sonnet-4-5",
        content={"zh": {**text, "takeaway": "简短结论。"}, "en": text},
        input_tokens=100,
        output_tokens=50,
        cost_usd=Decimal("0.001"),
        written_at=written_at,
    )


def source(slug: str = "arxiv", name: str = "arXiv OAI-PMH", *, enabled: bool = True) -> Source:
    return Source.objects.create(slug=slug, name=name, enabled=enabled, checkpoint={"from": "2026-11-12"})


def run(src: Source, *, started: datetime, status: str = HarvestRun.Status.OK, error: str = "", **counts) -> HarvestRun:
    finished = None if status == HarvestRun.Status.RUNNING else started + timedelta(minutes=3)
    return HarvestRun.objects.create(
        source=src, started_at=started, finished_at=finished, status=status, error=error, **counts
    )


def pick(paper, src: Source, *, upvotes: int = 12) -> CommunityPick:
    return CommunityPick.objects.create(
        paper=paper, source=src, featured_on=date(2026, 11, 12), upvotes=upvotes, url="https://huggingface.co/papers/x"
    )
