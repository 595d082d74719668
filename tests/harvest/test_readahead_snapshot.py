"""The snapshot import with its reader process running one batch ahead: the counts
each progress report shows are those of the batch just stored, and a reading
error arrives after the batches before it are stored."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from dataclasses import astuple

import pytest

from harvest.models import Paper
from harvest.source_records import MalformedRecord
from harvest.sources.snapshot import ImportResult, category_matcher, import_snapshot, parse_snapshot_line
from tests.harvest.test_snapshot import SAMPLE_LINES

pytestmark = pytest.mark.django_db


MALFORMED = b'{"id": "0704.9999", "title": "truncated'


def mixed_lines() -> list[bytes]:
    """The sample with a malformed line every 13 lines and a blank one every 17."""
    lines = []
    for number, line in enumerate(SAMPLE_LINES):
        lines.append(line)
        if number % 13 == 5:
            lines.append(MALFORMED)
        if number % 17 == 3:
            lines.append(b"   ")
    return lines


def expected_counts(lines: list[bytes], codes: list[str], batch_size: int) -> list[tuple[int, int, int, int]]:
    """(lines, kept, filtered_out, skipped) after each full batch, read one line at a time."""
    keep = category_matcher(codes)
    kept = filtered_out = skipped = 0
    reports = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse_snapshot_line(line)
        except MalformedRecord:
            skipped += 1
            continue
        if not keep(record.categories):
            filtered_out += 1
            continue
        kept += 1
        if kept % batch_size == 0:
            reports.append((number, kept, filtered_out, skipped))
    return reports


def test_each_progress_report_counts_up_to_the_batch_just_stored():
    lines = mixed_lines()
    reports = []

    def progress(result: ImportResult) -> None:
        # Everything counted as new is in the library when it is reported.
        assert Paper.objects.count() == result.new_papers == result.kept
        reports.append((result.lines, result.kept, result.filtered_out, result.skipped))

    result = import_snapshot(lines=lines, categories=["math", "cond-mat"], batch_size=7, progress=progress)

    assert reports == expected_counts(lines, ["math", "cond-mat"], 7)
    assert len(reports) >= 10
    assert (result.lines, result.skipped) == (len(lines), lines.count(MALFORMED))
    assert result.kept + result.filtered_out + result.skipped == sum(1 for line in lines if line.strip())
    assert Paper.objects.count() == result.new_papers == result.kept


def test_a_reading_error_is_raised_after_the_batches_before_it_are_stored():
    def lines() -> Iterator[bytes]:
        yield from SAMPLE_LINES[:25]
        raise OSError("the disk went away")

    reports = []
    with pytest.raises(OSError, match="the disk went away"):
        import_snapshot(lines=lines(), batch_size=10, progress=lambda result: reports.append(astuple(result)[:4]))

    assert Paper.objects.count() == 20
    assert [report[:2] for report in reports] == [(10, 10), (20, 20)]
    assert not [child for child in multiprocessing.active_children() if child.name == "snapshot-reader"]


def test_an_error_while_storing_stops_the_reader():
    def progress(result: ImportResult) -> None:
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        import_snapshot(lines=SAMPLE_LINES, batch_size=10, progress=progress)

    assert Paper.objects.count() == 10
    assert not [child for child in multiprocessing.active_children() if child.name == "snapshot-reader"]
