"""The benchmark's inputs: distinct papers, in pages and lines the real parsers read without a skip."""

from __future__ import annotations

from bench import inputs
from harvest.records import split_arxiv_id
from harvest.sources.oai import parse_list_records
from harvest.sources.snapshot import parse_snapshot_line

PAPERS = 2600  # more than one template cycle and a month boundary is not needed; three pages, the last short


def test_oai_pages_hold_distinct_new_style_papers_the_harvester_reads_without_skips():
    pages = [
        parse_list_records(page) for page in inputs.oai_pages(papers=PAPERS, page_size=1000, series_month=0, seed=1)
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
