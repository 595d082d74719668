"""The full text of real recorded papers (tests/fixtures/fulltext/, PROVENANCE
there): arXiv's HTML rendering (and an older LaTeXML's, of an ACL 2014 paper)
read into sections with their LaTeXML anchors, paragraphs with math as TeX,
captions and references; real arXiv PDFs read
into numbered sections, captions and references, within their page and time
bounds; and the stored form round-trips."""

from __future__ import annotations

import gzip
from itertools import count

import pytest

from harvest.fulltext.document import Document
from harvest.fulltext.html_parser import NotAConversion, parse_html
from harvest.fulltext.pdf_parser import PdfTooSlow, UnreadablePdf, parse_pdf
from tests.replay_server import fixture_bytes

HTML = "fulltext/2501.11120v1.html.gz"


@pytest.fixture(scope="module")
def html_document() -> Document:
    return parse_html(gzip.decompress(fixture_bytes(HTML)))


@pytest.fixture(scope="module")
def lexsum() -> Document:
    return parse_pdf(fixture_bytes("fulltext/2206.10883v3.pdf"), max_pages=80, seconds=120)


def paragraphs(document: Document):
    return [p for s in document.sections for p in s.paragraphs]


def test_the_html_page_keeps_its_title_abstract_and_sections_with_latexml_anchors(html_document):
    assert html_document.origin == "html"
    assert html_document.title == "Tell me about yourself: LLMs are aware of their learned behaviors"
    assert html_document.abstract.startswith("We study behavioral self-awareness")
    by_anchor = {s.anchor: s for s in html_document.sections}
    assert (by_anchor["S1"].number, by_anchor["S1"].heading, by_anchor["S1"].level) == ("1", "Introduction", 1)
    subsection = by_anchor["S3.SS1"]
    assert subsection.number == "3.1" and subsection.level == 2
    assert subsection.heading.startswith("Finetuning on multiple-choice responses")
    assert (by_anchor["S3.SS1.SSS1"].number, by_anchor["S3.SS1.SSS1"].heading) == ("3.1.1", "Design")
    # A \paragraph is a level-4 section of its own, with its anchor.
    assert by_anchor["S3.SS2.SSS1.Px1"].level == 4
    assert by_anchor["S3.SS2.SSS1.Px1"].heading == "Make Me Say rules"


def test_each_paragraph_belongs_to_its_own_section_only(html_document):
    by_anchor = {s.anchor: s for s in html_document.sections}
    intro = [p.anchor for p in by_anchor["S1"].paragraphs]
    assert intro[0] == "S1.p1" and all(anchor.startswith("S1.p") for anchor in intro)
    # Section 3's own text does not repeat its subsections' paragraphs.
    assert not any(p.anchor.startswith("S3.SS1") for p in by_anchor["S3"].paragraphs)


def test_math_is_kept_as_its_tex(html_document):
    with_math = [p.text for p in paragraphs(html_document) if "$" in p.text]
    assert any("$z\\in Z$" in text for text in with_math)
    assert any("$\\varphi_{T}$" in text for text in with_math)


def test_figure_and_table_captions_keep_their_anchor_and_section(html_document):
    captions = {c.anchor: c for c in html_document.captions}
    assert captions["S1.F1"].kind == "figure" and captions["S1.F1"].section == "S1"
    assert captions["S1.F1"].text.startswith("Figure 1: Models can describe a learned behavioral policy")
    assert captions["S3.T1"].kind == "table"
    assert captions["S3.T1"].text.startswith("Table 1: Overview of experiments")


def test_tables_are_kept_as_rows_of_cells(html_document):
    tables = [p for p in paragraphs(html_document) if p.kind == "table"]
    overview = next(p for p in tables if p.anchor == "S3.T1")
    assert "Economic decisions (Section 3.1)" in overview.text
    assert " | " in overview.text


def test_an_older_latexml_rendering_keeps_its_div_tables_and_captions():
    """LaTeXML 0.8.0 (the ACL 2014 renderings) writes floats as `div.ltx_table`
    with a `div.ltx_caption`, not `figure` and `figcaption`."""
    document = parse_html(gzip.decompress(fixture_bytes("fulltext/P14-1106.xhtml.gz")))
    tables = {p.anchor: p.text for p in paragraphs(document) if p.kind == "table"}
    captions = {c.anchor: c for c in document.captions}

    assert len(tables) == 10
    assert "M | 73.5 | 80.6 | 63.8 | 67.9" in tables["S4.T3"]
    assert captions["S3.T1"].kind == "table" and captions["S3.T1"].section == "S3.SS1"
    assert captions["S3.T1"].text.startswith("Table 1: Features adopted in the syntactic leftmost")
    assert captions["S3.F1"].text == "Figure 1: Example of predicate-argument structure."


def test_the_reference_list_is_kept_with_its_anchors(html_document):
    assert len(html_document.references) == 48
    assert html_document.references[0].anchor == "bib.bib1"
    assert "Llama 3 model card" in html_document.references[0].text


def test_the_stored_form_round_trips_and_is_compressed(html_document):
    blob = html_document.compress()
    assert Document.decompress(blob) == html_document
    assert len(blob) < html_document.text_chars / 2


def test_a_page_that_is_not_a_latexml_rendering_is_refused():
    with pytest.raises(NotAConversion):
        parse_html(b"<html><body><h1>No HTML for this paper</h1><p>Try the PDF.</p></body></html>")


def test_a_pdf_is_read_into_numbered_sections_with_their_pages(lexsum):
    assert lexsum.origin == "pdf" and lexsum.pages == 37 and not lexsum.truncated
    headings = [(s.number, s.heading, s.page) for s in lexsum.sections]
    assert ("1", "Introduction", 1) in headings
    assert ("3", "Multi-LexSum", 4) in headings
    assert ("4.1", "Experimental Setup", 7) in headings
    assert all(s.anchor == "" for s in lexsum.sections)


def test_a_pdf_keeps_its_captions_and_references(lexsum):
    captions = [c.text for c in lexsum.captions]
    assert any(text.startswith("Table 1: Three different summaries for one case") for text in captions)
    assert any(text.startswith("Figure 1: The pipeline of creating summaries") for text in captions)
    assert lexsum.references[0].text.startswith("[1] Iz Beltagy, Matthew E Peters, and Arman Cohan. Longformer")
    assert len(lexsum.references) >= 60


@pytest.mark.parametrize(
    "name, pages, heading",
    [
        ("2304.02623v1.pdf", 4, ("1", "INTRODUCTION")),
        ("2302.07302v1.pdf", 15, ("3", "PRELIMINARY INTERVIEWS")),
        ("1903.10676.pdf", 1, ("4.2", "Computer Science Domain")),
    ],
)
def test_other_real_pdfs_are_read(name, pages, heading):
    document = parse_pdf(fixture_bytes(f"fulltext/{name}"), max_pages=80, seconds=120)
    assert document.pages == pages
    assert heading in [(s.number, s.heading) for s in document.sections]


def test_a_pdf_past_the_page_bound_is_read_up_to_it():
    document = parse_pdf(fixture_bytes("fulltext/2206.10883v3.pdf"), max_pages=2, seconds=120)
    assert document.truncated and document.pages == 37
    assert max(s.page for s in document.sections) <= 2


def test_a_pdf_read_past_its_time_is_stopped():
    ticks = count(step=10.0)  # every page read costs ten "seconds"
    with pytest.raises(PdfTooSlow, match="over 25 s"):
        parse_pdf(fixture_bytes("fulltext/2206.10883v3.pdf"), max_pages=80, seconds=25, clock=lambda: next(ticks))


def test_bytes_that_are_not_a_pdf_are_refused():
    with pytest.raises(UnreadablePdf):
        parse_pdf(gzip.decompress(fixture_bytes(HTML)), max_pages=80, seconds=120)
