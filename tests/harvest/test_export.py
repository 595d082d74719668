"""`export_papers`: the library as JSON lines, compared with what was imported."""

from __future__ import annotations

import json
from datetime import UTC, date
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from harvest.models import Paper
from harvest.source_records import parse_arxiv_date
from harvest.text_repair import readable
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db

SAMPLE = FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
SOURCE = {entry["id"]: entry for entry in map(json.loads, SAMPLE.read_text().splitlines())}


def export(*args: str) -> list[dict]:
    out = StringIO()
    call_command("export_papers", *args, stdout=out, stderr=StringIO())
    return [json.loads(line) for line in out.getvalue().splitlines()]


def iso(created: str) -> str:
    return parse_arxiv_date(created).isoformat().replace("+00:00", "Z")


@pytest.fixture
def imported() -> None:
    call_command("import_snapshot", str(SAMPLE), stdout=StringIO(), stderr=StringIO())


def test_round_trip_gives_back_every_paper_with_its_versions_and_dates(imported):
    exported = export()

    assert [paper["id"] for paper in exported] == list(SOURCE)
    for paper in exported:
        entry = SOURCE[paper["id"]]
        assert paper["categories"] == entry["categories"].split()
        assert [(v["version"], v["submitted"]) for v in paper["versions"]] == [
            (v["version"], iso(v["created"])) for v in entry["versions"]
        ]
        assert paper["published"] == iso(entry["versions"][0]["created"])
        assert paper["updated"] == iso(entry["versions"][-1]["created"])
        # Stored as ingest decodes it: TeX letters as Unicode (Gr\"obner is Gröbner).
        assert paper["title"] == " ".join(readable(entry["title"]).split())
        assert '\\"o' not in paper["title"]
        assert len(paper["authors"]) == len(entry["authors_parsed"]) == len(paper["affiliations"])
        assert paper["doi"] == (entry["doi"] or "")
    first = exported[0]
    assert set(first) >= {"id", "title", "abstract", "authors", "categories", "published", "updated"}
    assert set(first) >= {"included_at", "ai_related", "versions"}
    assert first["versions"][0] == {"version": "v1", "submitted": "2007-04-02T19:18:42Z", "size": ""}
    assert first["authors"][0] == "C. Balázs"
    by_id = {paper["id"]: paper for paper in exported}
    assert by_id["0704.0031"]["affiliations"] == ["Serpukhov, IHEP"] and first["affiliations"][0] == ""


def test_since_keeps_papers_whose_latest_version_is_on_or_after_the_day(imported):
    cut = date(2007, 6, 1)
    expected = [
        arxiv_id
        for arxiv_id, entry in SOURCE.items()
        if parse_arxiv_date(entry["versions"][-1]["created"]).date() >= cut
    ]
    assert 0 < len(expected) < len(SOURCE)

    assert [paper["id"] for paper in export("--since", "2007-06-01")] == expected


def test_export_reads_versions_in_bulk_per_chunk_not_per_paper(imported):
    with CaptureQueriesContext(connection) as queries:
        exported = export("--chunk-size", "50")

    assert len(exported) == 200
    # 4 chunks of papers, each with one query for its versions (PostgreSQL
    # adds nothing; SQLite has no server-side cursor and reads the same way).
    assert len(queries) <= 2 * 4 + 2


def test_output_file_and_empty_library(tmp_path: Path, imported):
    target = tmp_path / "papers.jsonl"
    call_command("export_papers", "--output", str(target), stdout=StringIO(), stderr=StringIO())
    assert [json.loads(line)["id"] for line in target.read_text(encoding="utf-8").splitlines()] == list(SOURCE)

    Paper.objects.all().delete()
    assert export() == []


@pytest.mark.parametrize("value", ["2026-13-01", "yesterday", "2026-1-5", ""])
def test_a_bad_since_is_a_clear_error(value):
    with pytest.raises(CommandError, match="--since must be a date in the form YYYY-MM-DD"):
        call_command("export_papers", "--since", value, stdout=StringIO(), stderr=StringIO())


def test_included_at_and_ai_related_are_exported(imported):
    paper = Paper.objects.get(arxiv_id="0704.0002")
    exported = {p["id"]: p for p in export()}["0704.0002"]
    assert exported["included_at"] == paper.included_at.astimezone(UTC).isoformat().replace("+00:00", "Z")
    assert exported["ai_related"] is paper.ai_related
