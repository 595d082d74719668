"""Every real recorded paper of tests/fixtures/fulltext/ (provenance in
tests/fixtures/PROVENANCE.md), parsed once: arXiv's own HTML page, LaTeXML
renderings of ACL 2014 papers (the converter arXiv uses, run by the
anthology in 2014), and PDFs from arXiv and the ACL Anthology. Papers that
are not arXiv renderings are stored under made-up ids (1406.9xxxx, a range
arXiv never numbered) so the tests can give each one a paper and version."""

from __future__ import annotations

import gzip
from functools import cache

from harvest.fulltext.document import Document
from harvest.fulltext.html_parser import parse_html
from harvest.fulltext.pdf_parser import parse_pdf
from tests.replay_server import fixture_bytes

# fixture file -> the arXiv id (and version) the tests store it under
PAPERS: dict[str, tuple[str, int]] = {
    "2501.11120v1.html.gz": ("2501.11120", 1),
    "P14-1025.xhtml.gz": ("1406.90025", 1),
    "P14-1044.xhtml.gz": ("1406.90044", 1),
    "P14-1065.xhtml.gz": ("1406.90065", 1),
    "P14-1073.xhtml.gz": ("1406.90073", 1),
    "P14-1091.xhtml.gz": ("1406.90091", 1),
    "P14-1100.xhtml.gz": ("1406.90100", 1),
    "P14-1106.xhtml.gz": ("1406.90106", 1),
    "P14-1108.xhtml.gz": ("1406.90108", 1),
    "P14-1126.xhtml.gz": ("1406.90126", 1),
    "P14-1130.xhtml.gz": ("1406.90130", 1),
    "P14-1131.xhtml.gz": ("1406.90131", 1),
    "P14-1138.xhtml.gz": ("1406.90138", 1),
    "P14-2005.xhtml.gz": ("1406.92005", 1),
    "1903.10676.pdf": ("1903.10676", 1),
    "2203.00130v1.pdf": ("2203.00130", 1),
    "2206.10883v3.pdf": ("2206.10883", 3),
    "2302.07302v1.pdf": ("2302.07302", 1),
    "2304.02623v1.pdf": ("2304.02623", 1),
    "2020.acl-main.447.pdf": ("1406.97447", 1),
    "2023.eacl-main.121.pdf": ("1406.98121", 1),
}


@cache
def fixture_document(name: str) -> Document:
    raw = fixture_bytes(f"fulltext/{name}")
    if name.endswith(".gz"):
        return parse_html(gzip.decompress(raw))
    return parse_pdf(raw, max_pages=80, seconds=120)
