from __future__ import annotations

from collections.abc import Iterator

import pytest

from harvest.models import Version
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord, VersionRecord
from tests.digests.fake_anthropic import FakeAnthropic


@pytest.fixture
def fake_anthropic(settings, monkeypatch) -> Iterator[FakeAnthropic]:
    """The fake Anthropic API, with the SDK pointed at it through its own
    ANTHROPIC_BASE_URL and the project configured with the key it accepts."""
    server = FakeAnthropic().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    settings.ANTHROPIC_API_KEY = server.api_key
    settings.PAPERTRAIL_SUMMARY_BACKOFF_BASE = 0.01
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = 5.0
    settings.PAPERTRAIL_SUMMARY_SCOPE = "ai"
    try:
        yield server
    finally:
        server.stop()


def make_record(
    arxiv_id: str,
    *,
    title: str = "Sparse attention for long documents",
    abstract: str = (
        "We study attention over long documents. We propose a sparse attention pattern that scales linearly. "
        "On three benchmarks it matches dense attention at a fifth of the cost."
    ),
    categories: list[str] | None = None,
    versions: int = 1,
    comments: str = "",
) -> PaperRecord:
    return PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract=abstract,
        authors=["Ada Lovelace", "Alan Turing"],
        categories=categories or ["cs.LG", "cs.CL"],
        comments=comments,
        versions=[VersionRecord(number=n) for n in range(1, versions + 1)],
    )


def store(*records: PaperRecord) -> list[Version]:
    """Store through the harvest's own upsert service; the new versions."""
    result = paper_upsert_many(records=list(records))
    return list(Version.objects.filter(pk__in=result.created_version_ids).select_related("paper"))
