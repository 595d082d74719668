"""The upsert's two stores (set-based SQL on PostgreSQL, the ORM elsewhere)
store identical libraries and report identical counts for the same records."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import pytest

from harvest import services, stores
from harvest.models import Author, Authorship, Paper, PaperCategory, Version
from harvest.source_records import PaperRecord, VersionRecord
from harvest.sources.oai import parse_list_records
from harvest.sources.snapshot import parse_snapshot_line
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db

FIRST = datetime(2026, 11, 1, tzinfo=UTC)
LATER = datetime(2026, 11, 2, tzinfo=UTC)


def first_records() -> list[PaperRecord]:
    """Real records: the recorded arXivRaw page and the Kaggle snapshot sample."""
    oai = parse_list_records((FIXTURES / "arxiv_oai" / "ListRecordsResponse.xml").read_bytes()).records
    snapshot = FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
    return oai + [parse_snapshot_line(line) for line in snapshot.read_bytes().splitlines()]


def later_records(records: list[PaperRecord]) -> list[PaperRecord]:
    """What later sources say about the same papers: new versions, changed
    categories and authors, older records that know fewer versions, a paper
    listed twice, a new paper, and records that change nothing."""
    later = []
    for index, original in enumerate(records):
        record = copy.deepcopy(original)
        if index % 3 == 0:
            number = record.latest_version + 1
            submitted = record.versions[-1].submitted + timedelta(days=30)
            record.versions.append(VersionRecord(number=number, submitted=submitted, size="12kb"))
            record.title = f"{record.title} (revised)"
        if index % 5 == 0:
            record.categories = ["cs.DB", *record.categories[1:]]
        if index % 7 == 0:
            record.authors = [*record.authors[1:], "Grace Hopper"]
            record.affiliations = [*record.affiliations[1:], "Yale University"] if record.affiliations else []
        elif record.affiliations:
            record.affiliations = [*record.affiliations[1:], record.affiliations[0]]  # the same names, moved
        if index % 11 == 0:
            record.versions = record.versions[:1]
            record.title = "What the first version said"
        later.append(record)
    later.append(copy.deepcopy(later[1]))
    later.append(PaperRecord(arxiv_id="2611.99999", title="A new paper", versions=[VersionRecord(number=1)]))
    return later


def library() -> dict:
    return {
        "papers": sorted(
            Paper.objects.values_list(
                "arxiv_id",
                "title",
                "abstract",
                "authors",
                "affiliations",
                "categories",
                "primary_category",
                "comments",
                "journal_ref",
                "doi",
                "license",
                "submitter",
                "published",
                "updated",
                "included_at",
                "ai_related",
                "latest_version",
                "version_count",
                "search_pending",
            )
        ),
        "versions": sorted(
            Version.objects.values_list(
                "paper__arxiv_id",
                "number",
                "submitted",
                "size",
                "source_type",
                "title",
                "abstract",
                "authors",
                "comments",
                "discovered_at",
            )
        ),
        "authorships": sorted(
            Authorship.objects.values_list("paper__arxiv_id", "position", "author__name", "affiliation")
        ),
        "categories": sorted(PaperCategory.objects.values_list("paper__arxiv_id", "category", "is_primary")),
        "authors": sorted(Author.objects.values_list("name", flat=True)),
    }


def ingest() -> tuple[list[tuple], dict]:
    records = first_records()
    counts = []
    for batch, now in ((records, FIRST), (later_records(records), LATER), (later_records(records), LATER)):
        result = services.paper_upsert_many(records=copy.deepcopy(batch), now=now)
        created = Version.objects.filter(pk__in=result.created_version_ids).count()
        counts.append((result.seen, result.new_papers, result.new_versions, result.updated, result.unchanged, created))
    return counts, library()


def empty_library() -> None:
    Paper.objects.all().delete()
    Author.objects.all().delete()


def test_the_configured_store_and_the_orm_store_store_identical_libraries(monkeypatch):
    counts, stored = ingest()
    empty_library()
    monkeypatch.setattr(services, "store_for_connection", stores.OrmStore)
    orm_counts, orm_stored = ingest()

    assert counts == orm_counts
    assert stored == orm_stored
    # The batches really exercised every rule: new papers, new versions,
    # updates without a version, unchanged papers, and nothing on a repeat.
    assert counts[0][1] == len({record.arxiv_id for record in first_records()}) and counts[1][1] == 1
    assert counts[1][2] > 0 and counts[1][3] > 0 and counts[1][4] > 0
    assert counts[2][1:3] == (0, 0) and counts[2][5] == 0
    assert ("2611.99999", 1) in {(v[0], v[1]) for v in stored["versions"]}
    assert "Grace Hopper" in stored["authors"]
    # Affiliations reached both stores' authorships, changed where only they changed.
    assert ("0704.0031", 0, "V. M. Biryukov", "Serpukhov, IHEP") in stored["authorships"]
    tokyo = "CREST, Japan Science and Technology Agency; The University of Tokyo"
    assert ("0704.0025", 0, "A. S. Mishchenko", tokyo) in stored["authorships"]
    assert ("0704.0079", 1, "Grace Hopper", "Yale University") in stored["authorships"]
