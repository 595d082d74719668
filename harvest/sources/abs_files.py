"""arXiv's own per-paper metadata files (`.abs`, the source of its OAI-PMH and
API output). No source fetches them; the bundled offline library holds some
(a paper's current file and those of its superseded versions, `orig/<id>vN.abs`,
so that a fresh install shows what changed between versions).

The layout, as arXiv writes it: a `\\\\` line, the id, `From:`, one `Date:` line
per version (`Date (revised vN):` after the first, each ending with the
size), the fields (`Title:`, `Authors:`, `Categories:`, …; a field goes on on
indented lines), a `\\\\` line, the abstract, and a closing `\\\\`.
"""

from __future__ import annotations

import re
from pathlib import Path

from harvest.author_strings import parse_authors
from harvest.source_records import (
    MalformedRecord,
    PaperRecord,
    VersionRecord,
    checked,
    clean_abstract,
    clean_line,
    parse_arxiv_date,
    split_arxiv_id,
)

_DATE = re.compile(r"^Date(?: \(revised v(\d+)\))?:\s*(.+?)\s*\(([^)]*)\)\s*$")
_FIELD = re.compile(r"^([A-Z][A-Za-z-]*):\s?(.*)$")


def parse_abs(text: str) -> PaperRecord:
    """One `.abs` file as a PaperRecord; MalformedRecord if unusable."""
    parts = text.split("\\\\")
    if len(parts) < 3:
        raise MalformedRecord("not an arXiv .abs file: no \\\\ separators")
    header, abstract = parts[1], parts[2]
    fields: dict[str, str] = {}
    versions: list[VersionRecord] = []
    arxiv_id = ""
    last = None
    for line in header.splitlines():
        if line.startswith("arXiv:") and not arxiv_id:
            arxiv_id, _version = split_arxiv_id(line.strip())
            continue
        date = _DATE.match(line)
        if date:
            number = int(date.group(1) or 1)
            versions.append(VersionRecord(number, parse_arxiv_date(date.group(2)), date.group(3).split(",")[0]))
            last = None
            continue
        field = _FIELD.match(line)
        if field:
            last = field.group(1)
            fields[last] = field.group(2)
        elif line.startswith((" ", "\t")) and last:
            fields[last] += " " + line.strip()
    if not arxiv_id:
        raise MalformedRecord("no arXiv id")
    title = clean_line(fields.get("Title"))
    if not title or not versions:
        raise MalformedRecord(f"{arxiv_id}: no title or no version dates")
    authors, affiliations = parse_authors(fields.get("Authors"))
    return checked(
        PaperRecord(
            arxiv_id=arxiv_id,
            title=title,
            abstract=clean_abstract(abstract),
            authors=authors,
            affiliations=affiliations,
            categories=list(dict.fromkeys((fields.get("Categories") or "").split())),
            comments=clean_line(fields.get("Comments")),
            journal_ref=clean_line(fields.get("Journal-ref")),
            doi=clean_line(fields.get("DOI")),
            license=clean_line(fields.get("License")),
            versions=sorted(versions, key=lambda version: version.number),
            published=min(versions, key=lambda version: version.number).submitted,
            updated=max(versions, key=lambda version: version.number).submitted,
        )
    )


def abs_records(path: Path) -> list[PaperRecord]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # arXiv's older files: not UTF-8, so Latin-1 is what they are
    return [parse_abs(text)]


def abs_files(directory: Path) -> list[Path]:
    """Superseded versions first, oldest first, then the current files: each
    version's text is stored while that version is the paper's latest."""

    def version_of(path: Path) -> int:
        found = re.search(r"v(\d+)$", path.stem)
        return int(found.group(1)) if found else 0

    older = sorted((directory / "orig").rglob("*.abs"), key=lambda path: (version_of(path), str(path)))
    return older + sorted((directory / "ftp").rglob("*.abs"))
