"""RIS (the tagged format of Zotero, Mendeley, EndNote): a writer and a
reader through `rispy`, one entry at a time so a broken one is reported alone."""

from __future__ import annotations

import re

import rispy
from django.utils.translation import gettext as _

from accounts.records.files import ExportItem, ImportEntry, MalformedEntry, ReadResult
from accounts.records.files.bibtex import unique_keys
from accounts.records.files.identifiers import arxiv_id_in, doi_in, split_name

# UNPB (unpublished work) is the RIS type reference managers read as a preprint.
PREPRINT_TYPE = "UNPB"
_END = re.compile(r"^ER  -.*$", re.MULTILINE)
_TAG_LINE = re.compile(r"^[A-Z][A-Z0-9]  - ?", re.MULTILINE)


def _line(tag: str, value: str) -> str:
    # A field is one line: line breaks in a title or an abstract become spaces.
    return f"{tag}  - {' '.join(value.split())}"


def write(items: list[ExportItem]) -> str:
    entries = []
    for item, key in zip(items, unique_keys(items), strict=True):
        lines = [_line("TY", PREPRINT_TYPE), _line("ID", key), _line("TI", item.title)]
        for name in item.authors:
            family, given = split_name(name)
            lines.append(_line("AU", f"{family}, {given}" if given else family))
        if item.year:
            lines.append(_line("PY", str(item.year)))
        if item.published:
            lines.append(_line("DA", item.published.strftime("%Y/%m/%d")))
        if item.abstract:
            lines.append(_line("AB", item.abstract))
        lines += [_line("PB", "arXiv"), _line("AN", f"arXiv:{item.arxiv_id}")]
        if item.doi:
            lines.append(_line("DO", item.doi))
        lines.append(_line("UR", item.url))
        lines += [_line("KW", tag) for tag in item.tags]
        lines.append("ER  - ")
        entries.append("\n".join(lines) + "\n")
    return "\n".join(entries)


def _text(value) -> str:
    if isinstance(value, list):
        return " ".join(str(part) for part in value)
    return str(value or "")


def entry_from(data: dict) -> ImportEntry:
    title = " ".join(_text(data.get("title") or data.get("primary_title")).split())
    fields = [_text(data.get(name)) for name in ("urls", "doi", "accession_number", "notes", "journal_name", "id")]
    return ImportEntry(
        label=_text(data.get("id")) or title[:80],
        arxiv_id=arxiv_id_in(*fields),
        doi=doi_in(_text(data.get("doi"))),
        title=title,
        tags=[" ".join(str(tag).split()) for tag in data.get("keywords") or [] if str(tag).strip()],
    )


def read(text: str) -> ReadResult:
    result = ReadResult()
    text = text.replace("\r\n", "\n")
    pieces, position = [], 0
    for match in _END.finditer(text):
        pieces.append(text[position : match.end()])
        position = match.end()
    if text[position:].strip():
        pieces.append(text[position:])
    for number, piece in enumerate(pieces, start=1):
        label = _("entry %(number)d") % {"number": number}
        if not re.search(r"^TY  - ", piece, re.MULTILINE) or not _END.search(piece):
            result.malformed.append(MalformedEntry(label, _("an RIS entry runs from a TY line to an ER line")))
            continue
        try:
            [data] = rispy.loads(piece.strip() + "\n")
        except Exception as exc:  # rispy raises bare IOError/ValueError on a bad line
            result.malformed.append(MalformedEntry(label, _("unreadable RIS: %(error)s") % {"error": exc}))
            continue
        entry = entry_from(data)
        if not entry.label:
            entry.label = label
        if entry.arxiv_id or entry.doi or entry.title:
            result.entries.append(entry)
        else:
            result.malformed.append(MalformedEntry(entry.label or label, _("no arXiv id, DOI or title")))
    return result


def looks_like_ris(text: str) -> bool:
    return bool(re.search(r"^TY  - ", text, re.MULTILINE)) and bool(_TAG_LINE.search(text))
