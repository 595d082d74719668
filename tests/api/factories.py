"""API test data: papers and versions through the real upsert service, plain
ORM rows for sources, runs, community picks and guided readings."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from digests.models import GuidedReading
from digests.selectors import current_prompt_version
from harvest.models import CommunityPick, HarvestRun, Source, Version
from harvest.records import PaperRecord
from harvest.services import paper_upsert_many
from tests.portal import factories as portal_factories

V1 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def record(
    arxiv_id: str,
    *,
    abstract: str = "We study sparse attention over long documents.",
    first: datetime = V1,
    **fields,
) -> PaperRecord:
    """The portal's record (tests/portal/factories.py), with the API tests' defaults."""
    return portal_factories.record(arxiv_id, abstract=abstract, first_submitted=first, **fields)


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
