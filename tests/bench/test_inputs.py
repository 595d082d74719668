"""The benchmark's inputs: distinct papers, in pages and lines the real parsers read without a skip."""

from __future__ import annotations

import re
import statistics

import pytest

from bench import inputs
from harvest.source_records import split_arxiv_id
from harvest.sources.oai import parse_list_records
from harvest.sources.snapshot import parse_snapshot_line

PAPERS = 2600  # more than one template cycle and a month boundary is not needed; three pages, the last short


def test_oai_pages_hold_distinct_new_style_papers_the_harvester_reads_without_skips():
    pages = [
        parse_list_records(page)
        for page in inputs.oai_pages(papers=PAPERS, page_size=1000, series_month=0, seed=1, text="recorded")
    ]

    assert [len(page.records) for page in pages] == [1000, 1000, 600]
    assert all(page.skipped == 0 and page.deleted == 0 and page.error_code is None for page in pages)
    assert [page.token for page in pages] == ["900000|1001", "900000|2001", None]
    ids = [record.arxiv_id for page in pages for record in page.records]
    assert len(set(ids)) == PAPERS
    assert all(split_arxiv_id(arxiv_id) == (arxiv_id, None) and len(arxiv_id) == 10 for arxiv_id in ids)
    records = [record for page in pages for record in page.records]
    assert {len(r.versions) for r in records} >= {1, 2, 3}
    assert all(r.categories[0].startswith("cs.") and r.authors and r.versions[0].submitted for r in records)
    assert all([v.number for v in r.versions] == list(range(1, len(r.versions) + 1)) for r in records)
    # The recorded text is kept: the first template's escaped quotes and its DOI.
    assert '" stiff "' in records[0].abstract
    assert records[0].doi == "10.1103/PhysRevC.76.024606 10.1103/PhysRevC.76.039902"


def test_snapshot_lines_hold_distinct_papers_the_import_reads_without_errors():
    lines = list(inputs.snapshot_lines(papers=PAPERS, series_month=0, seed=1))
    records = [parse_snapshot_line(line) for line in lines]

    assert len({r.arxiv_id for r in records}) == PAPERS
    assert all(r.title and r.abstract and r.authors and r.versions for r in records)


def test_each_series_has_its_own_papers():
    oai = {
        r.arxiv_id
        for p in inputs.oai_pages(papers=PAPERS, page_size=1000, series_month=1, seed=1)
        for r in parse_list_records(p).records
    }
    snapshot = {
        parse_snapshot_line(line).arxiv_id for line in inputs.snapshot_lines(papers=PAPERS, series_month=0, seed=1)
    }

    assert oai.isdisjoint(snapshot)
    assert inputs.paper_id(0, 0) == "1501.00001" and inputs.paper_id(0, 25_000) == "1502.00001"
    assert inputs.paper_id(12, 0) == "1601.00001"


def test_inputs_are_deterministic_for_a_seed():
    first = next(inputs.oai_pages(papers=50, page_size=50, series_month=0, seed=7))
    again = next(inputs.oai_pages(papers=50, page_size=50, series_month=0, seed=7))
    other = next(inputs.oai_pages(papers=50, page_size=50, series_month=0, seed=8))

    assert first == again != other


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def test_realistic_text_has_real_abstract_lengths_and_a_growing_vocabulary():
    papers = 4000
    records = [parse_snapshot_line(line) for line in inputs.snapshot_lines(papers=papers, series_month=0, seed=1)]
    recorded = [
        parse_snapshot_line(line)
        for line in inputs.snapshot_lines(papers=papers, series_month=0, seed=1, text="recorded")
    ]

    lengths = [len(r.abstract.split()) for r in records]
    assert 150 <= statistics.mean(lengths) <= 190  # recent arXiv cs abstracts: about 170 words
    assert 6 <= statistics.mean(len(r.title.split()) for r in records) <= 14
    assert len({r.abstract for r in records}) == papers  # no abstract repeats, unlike the recorded 200
    first_half = {w for r in records[: papers // 2] for w in _words(r.abstract)}
    everything = {w for r in records for w in _words(r.abstract)}
    recorded_vocabulary = {w for r in recorded for w in _words(r.abstract)}
    # Heaps' law: the second half of the papers still brings thousands of new words,
    # where the recorded text stops at the sample's few thousand.
    assert len(everything) - len(first_half) > 5000
    assert len(everything) > 5 * len(recorded_vocabulary)


def test_realistic_text_goes_into_oai_records_escaped_and_parsed_back():
    pages = list(inputs.oai_pages(papers=300, page_size=300, series_month=0, seed=3))
    records = parse_list_records(pages[0]).records
    lines = [parse_snapshot_line(line) for line in inputs.snapshot_lines(papers=300, series_month=0, seed=3)]

    assert len(records) == 300
    # The same seed and series draw the same text into both shapes.
    assert [r.abstract for r in records] == [r.abstract for r in lines]
    assert all(r.title and len(r.abstract.split()) >= 30 for r in records)


def test_text_must_be_realistic_or_recorded():
    with pytest.raises(ValueError, match="text must be"):
        list(inputs.snapshot_lines(papers=1, series_month=0, seed=1, text="lorem"))
