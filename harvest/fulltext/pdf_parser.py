"""A paper's PDF read into a `Document`, where arXiv has no HTML for it.

pypdf extracts the text page by page (docs/decisions.md, "Full text from a
PDF": measured against pdfminer.six on five real arXiv PDFs, as good and 1.3-2x
faster; PyMuPDF is AGPL). A PDF has no structure to keep, so sections are
found by their numbered headings ("3.2 Training") and the usual unnumbered
ones (Abstract, References, Appendix), captions by "Figure 3:" / "Table 2.",
references as the entries after "References". A PDF section has no anchor:
it names its page.

Bounds: at most `max_pages` pages are read (the rest is noted as truncated),
the whole read stops after `seconds`, and pypdf itself refuses a stream that
inflates past its own limit (a decompression bomb inside the file).
"""

from __future__ import annotations

import io
import logging
import re
import time
from collections.abc import Callable

import pypdf
from pypdf.errors import PyPdfError

from harvest.fulltext.document import Caption, Document, Paragraph, Reference, Section

logger = logging.getLogger(__name__)

_NUMBERED = re.compile(r"^(?P<number>(?:[1-9]\d?|[A-H])(?:\.\d{1,2}){0,2})\.?\s+(?P<title>[A-Z][^\n]{1,80})$")
_UNNUMBERED = re.compile(
    r"^(?P<title>Abstract|Introduction|Related Work|Conclusions?|Discussion|Acknowledge?ments?|References|"
    r"Bibliography|Appendix(?:\s+[A-Z])?(?:[:.\s].{0,60})?)$",
    re.IGNORECASE,
)
_CAPTION = re.compile(r"^(?P<kind>Figure|Fig\.|Table)\s+(?P<n>[0-9]+|[A-Z]\.?[0-9]+)\s*[:.|]\s*\S")
_REF_START = re.compile(r"^\[\d{1,3}\]\s")
_SPACE = re.compile(r"[ \t]+")


class UnreadablePdf(ValueError):
    """The bytes are not a PDF pypdf can read, or it holds no text."""


class PdfTooSlow(ValueError):
    """Reading the PDF took longer than allowed."""


def _is_heading(line: str) -> tuple[str, str] | None:
    if len(line) > 90 or line.endswith((",", ";")):
        return None
    match = _NUMBERED.match(line)
    if match:
        title = match["title"].strip()
        # A numbered line that reads like a sentence or a table row is not a heading.
        if title.endswith(".") or sum(ch.isdigit() for ch in title) > 4 or len(title.split()) > 12:
            return None
        return match["number"], title
    match = _UNNUMBERED.match(line)
    if match:
        return "", match["title"].strip()
    return None


def _level(number: str) -> int:
    return number.count(".") + 1 if number else 1


def _split_references(lines: list[str]) -> list[Reference]:
    entries: list[list[str]] = []
    bracketed = any(_REF_START.match(line) for line in lines)
    for line in lines:
        starts = _REF_START.match(line) if bracketed else (not entries or entries[-1][-1].endswith("."))
        if starts or not entries:
            entries.append([line])
        else:
            entries[-1].append(line)
    return [Reference(text=" ".join(entry)) for entry in entries if entry]


def parse_pdf(
    content: bytes,
    *,
    max_pages: int,
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> Document:
    started = clock()
    try:
        reader = pypdf.PdfReader(io.BytesIO(content))
        page_count = len(reader.pages)
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise UnreadablePdf(f"not a readable PDF: {exc.__class__.__name__}: {exc}") from exc
    title = ""
    metadata = reader.metadata
    if metadata and metadata.title:
        title = str(metadata.title).strip()
    sections: list[dict] = [{"heading": "", "number": "", "page": 1, "lines": []}]
    captions: list[Caption] = []
    pages_read = min(page_count, max_pages)
    for index in range(pages_read):
        if clock() - started > seconds:
            raise PdfTooSlow(f"reading the PDF took over {seconds:.0f} s (at page {index + 1} of {page_count})")
        try:
            text = reader.pages[index].extract_text() or ""
        except (PyPdfError, ValueError, KeyError, TypeError, RecursionError) as exc:
            logger.info("page %d of a PDF skipped: %s", index + 1, exc)
            continue
        for raw in text.splitlines():
            line = _SPACE.sub(" ", raw).strip()
            if not line:
                continue
            heading = _is_heading(line)
            if heading:
                number, name = heading
                sections.append({"heading": name, "number": number, "page": index + 1, "lines": []})
                continue
            if _CAPTION.match(line):
                kind = "table" if line.startswith("Table") else "figure"
                captions.append(Caption(kind=kind, text=line, section=sections[-1]["number"]))
            sections[-1]["lines"].append(line)
    references: list[Reference] = []
    kept: list[Section] = []
    abstract = ""
    for section in sections:
        name = section["heading"].lower()
        if name in ("references", "bibliography"):
            references.extend(_split_references(section["lines"]))
            continue
        text = " ".join(section["lines"])
        if name == "abstract":
            abstract = text
        if not text and not section["heading"]:
            continue
        kept.append(
            Section(
                heading=section["heading"],
                level=_level(section["number"]),
                number=section["number"],
                page=section["page"],
                paragraphs=(Paragraph(text=text),) if text else (),
            )
        )
    if not any(s.paragraphs for s in kept):
        raise UnreadablePdf("the PDF holds no extractable text (a scan?)")
    return Document(
        origin="pdf",
        title=title,
        abstract=abstract,
        sections=tuple(kept),
        captions=tuple(captions),
        references=tuple(references),
        pages=page_count,
        truncated=page_count > pages_read,
    )
