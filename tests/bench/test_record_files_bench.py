"""bench/record_files.py at a tiny scale: the bench user's record is built,
every export and the import are measured and their figures hold what was
done, and the bench users are gone afterwards."""

from __future__ import annotations

import argparse

import pytest

from accounts.models import User
from accounts.records.models import Record
from bench import record_files
from tests.accounts.conftest import harvest
from tests.factories import record

pytestmark = pytest.mark.django_db


def test_the_bench_exports_and_imports_and_leaves_nothing_behind():
    harvest(*(record(f"2611.{n:05d}", title=f"Paper number {n}") for n in range(1, 41)))
    args = argparse.Namespace(records=10, tags=4, import_entries=8, export_runs=1, keep_records=False)

    report = record_files.run_record_files(args)

    assert report["record"]["records"] == 10 and report["record"]["tag_links"] >= 10
    assert set(report["exports"]) == {"bibtex", "ris", "csljson", "json"}
    assert all(figures["bytes"] > 0 for figures in report["exports"].values())
    imported = report["import"]
    assert imported["entries"] == imported["matched"] == imported["saved"] == 8
    assert imported["saved_again"] == 0
    assert not User.objects.filter(username__in=[record_files.OWNER, record_files.IMPORTER]).exists()
    assert Record.objects.count() == 0
    assert any("import of a 8-entry BibTeX file" in line for line in record_files.lines(report))
