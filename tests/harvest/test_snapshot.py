"""Bootstrapping the library from arXiv's metadata snapshot (Kaggle JSON lines)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Max

from harvest.models import Author, Authorship, Paper, PaperCategory, Version
from harvest.source_records import MalformedRecord, parse_arxiv_date
from harvest.sources.snapshot import parse_snapshot_line
from tests.replay_server import FIXTURES

SAMPLE = FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
SAMPLE_LINES = SAMPLE.read_bytes().splitlines()
SOURCE = [json.loads(line) for line in SAMPLE_LINES]


def is_cs(entry: dict) -> bool:
    return any(c == "cs" or c.startswith("cs.") for c in entry["categories"].split())


def run_import(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("import_snapshot", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def library_state() -> tuple:
    return tuple(
        (model.objects.count(), model.objects.aggregate(top=Max("id"))["top"])
        for model in (Paper, Version, Author, Authorship, PaperCategory)
    )


def test_parse_keeps_every_version_authors_from_authors_parsed_and_categories_in_order():
    record = parse_snapshot_line(SAMPLE_LINES[0])

    assert record.arxiv_id == "0704.0001"
    assert record.title == "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    assert record.authors == ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"]
    assert record.categories == ["hep-ph"]
    assert record.journal_ref == "Phys.Rev.D76:013009,2007" and record.doi == "10.1103/PhysRevD.76.013009"
    assert record.license == ""  # null in the snapshot
    assert [(v.number, v.submitted) for v in record.versions] == [
        (1, datetime(2007, 4, 2, 19, 18, 42, tzinfo=UTC)),
        (2, datetime(2007, 7, 24, 20, 10, 27, tzinfo=UTC)),
    ]
    assert record.abstract.startswith(
        "A fully differential calculation in perturbative quantum chromodynamics is presented"
    )


def test_parse_puts_the_suffix_last_and_drops_the_affiliation_element():
    by_id = {entry["id"]: line for entry, line in zip(SOURCE, SAMPLE_LINES, strict=True)}
    evans_line = next(line for entry, line in zip(SOURCE, SAMPLE_LINES, strict=True) if "Evans" in entry["authors"])
    assert "Neal J. Evans II" in parse_snapshot_line(evans_line).authors
    assert parse_snapshot_line(by_id["0704.0025"]).authors[:2] == ["A. S. Mishchenko", "N. Nagaosa"]
    assert parse_snapshot_line(by_id["0704.0020"]).authors[0] == "The BABAR Collaboration"


@pytest.mark.parametrize(
    "line",
    [
        b"{not json",
        b"[1, 2]",
        b'{"title": "no id", "versions": [{"version": "v1"}]}',
        b'{"id": "0704.0001", "title": "t"}',
    ],
)
def test_parse_rejects_malformed_lines(line):
    with pytest.raises(MalformedRecord):
        parse_snapshot_line(line)


@pytest.mark.django_db
def test_import_stores_every_paper_and_version_with_dates_from_created():
    out, _ = run_import(str(SAMPLE))

    assert Paper.objects.count() == len(SOURCE) == 200
    assert Version.objects.count() == sum(len(entry["versions"]) for entry in SOURCE)
    assert "200 new papers" in out
    assert "records/s" in out
    for entry in SOURCE[:50]:
        paper = Paper.objects.get(arxiv_id=entry["id"])
        versions = list(paper.versions.order_by("number"))
        assert [v.label for v in versions] == [v["version"] for v in entry["versions"]]
        assert paper.categories == entry["categories"].split()
        assert paper.primary_category == entry["categories"].split()[0]
        assert paper.published == versions[0].submitted
        assert paper.updated == versions[-1].submitted
        assert paper.version_count == len(entry["versions"])
    multi = Paper.objects.get(arxiv_id="0704.0001")
    assert multi.updated == datetime(2007, 7, 24, 20, 10, 27, tzinfo=UTC)
    assert multi.versions.get(number=2).title == multi.title


@pytest.mark.django_db
def test_second_import_writes_nothing_new():
    run_import(str(SAMPLE), "--batch-size", "64")
    before = library_state()

    out, _ = run_import(str(SAMPLE), "--batch-size", "64")

    assert library_state() == before
    assert "0 new papers, 0 new versions, 0 updated, 200 unchanged" in out


@pytest.mark.django_db
def test_categories_keeps_records_with_any_category_inside_the_code():
    out, _ = run_import(str(SAMPLE), "--categories", "cs")

    expected = {entry["id"] for entry in SOURCE if is_cs(entry)}
    assert expected and len(expected) < len(SOURCE)
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == expected
    assert f"{len(SOURCE) - len(expected)} outside --categories" in out


@pytest.mark.django_db
def test_categories_accepts_a_comma_separated_and_repeated_list():
    run_import(str(SAMPLE), "--categories", "cs,math.CO", "--categories", "hep-th")

    wanted = ("cs", "math.CO", "hep-th")
    expected = {
        entry["id"]
        for entry in SOURCE
        if any(c in wanted or c.startswith(tuple(f"{w}." for w in wanted)) for c in entry["categories"].split())
    }
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == expected


@pytest.mark.django_db
def test_malformed_lines_are_logged_with_their_number_and_the_rest_is_stored(tmp_path: Path, caplog):
    lines = list(SAMPLE_LINES[:5])
    lines.insert(1, b'{"id": "0704.0001", "title": "truncated')
    lines.insert(
        3, b'{"title": "no id here", "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}]}'
    )
    broken = json.loads(SAMPLE_LINES[5])
    del broken["versions"]
    lines.append(json.dumps(broken).encode())
    path = tmp_path / "snapshot.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    with caplog.at_level(logging.WARNING, logger="harvest.sources.snapshot"):
        out, _ = run_import(str(path))

    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == {entry["id"] for entry in SOURCE[:5]}
    assert "3 malformed" in out
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("snapshot line 2 skipped: not JSON") for m in messages)
    assert any(m.startswith("snapshot line 4 skipped: no id") for m in messages)
    assert any(m.startswith(f"snapshot line 8 skipped: {broken['id']}: no versions") for m in messages)


@pytest.mark.django_db
def test_progress_is_shown_on_stderr_in_records_per_second():
    out, err = run_import(str(SAMPLE), "--batch-size", "50")

    lines = [line for line in err.splitlines() if line.strip()]
    progress, indexing = lines[:-1], lines[-1]
    assert len(progress) == 4
    assert progress[-1].startswith("line 200: 200 kept, 0 skipped, 200 new papers (")
    assert all(line.endswith("records/s)") for line in progress)
    # Then the imported papers go into the full-text index before the command ends.
    assert indexing.startswith("full-text index: 200 papers (")
    assert "200 papers added to the full-text index" in out
    assert not Paper.objects.filter(search_pending=True).exists()


@pytest.mark.django_db
def test_gzip_files_are_read_and_a_missing_file_is_a_clear_error(tmp_path: Path):
    import gzip

    path = tmp_path / "snapshot.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(SAMPLE_LINES[:10])))
    run_import(str(path))
    assert Paper.objects.count() == 10

    with pytest.raises(CommandError, match="cannot read"):
        run_import(str(tmp_path / "missing.jsonl"))


def test_version_dates_match_the_general_rfc822_parser():
    for line, entry in zip(SAMPLE_LINES, SOURCE, strict=True):
        record = parse_snapshot_line(line)
        assert [v.submitted for v in record.versions] == [parse_arxiv_date(v["created"]) for v in entry["versions"]]
    odd = json.loads(SAMPLE_LINES[0])
    odd["versions"][0]["created"] = "Mon, 02 Apr 2007 21:18:42 +0200"
    assert parse_snapshot_line(json.dumps(odd)).versions[0].submitted == datetime(2007, 4, 2, 19, 18, 42, tzinfo=UTC)
    odd["versions"][0]["created"] = "the second of April"
    with pytest.raises(MalformedRecord, match="bad date"):
        parse_snapshot_line(json.dumps(odd))
