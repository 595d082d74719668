"""arXiv's bulk metadata snapshot (Kaggle `arxiv-metadata-oai-snapshot.json`).

One JSON object per line with `id, submitter, authors, title, comments,
journal-ref, doi, report-no, categories, license, abstract,
versions[{version, created}], update_date, authors_parsed`. Version dates are
RFC-822 in GMT, as in arXivRaw; `authors_parsed` is `[last, first, suffix,
affiliation, ...]` with TeX accents already decoded, so names come from there.
Affiliations come from the `authors` string (harvest/author_strings.py) when
it names the same authors: `authors_parsed` leaves numbered ones unresolved
("1 and 2") or out (all of 0704.0128's), and agrees with the string's
reading wherever it has them. Else the elements after the third are taken.

The import streams the file line by line and stores it in batches through the
same bulk upsert every source uses, so memory is bounded by two batches (the
one being stored and the one parsed ahead of it in a background thread) and a
second import of the same file writes nothing.
"""

from __future__ import annotations

import calendar
import gzip
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from harvest.author_strings import is_reference, parse_authors
from harvest.pipeline import planned_ahead
from harvest.readahead import READ_AHEAD_PROCESS, reading_ahead
from harvest.services import UpsertResult, paper_upsert_many
from harvest.source_records import (
    MalformedRecord,
    PaperRecord,
    VersionRecord,
    author_affiliations,
    checked,
    clean_abstract,
    clean_line,
    clean_name,
    clean_title,
    parse_arxiv_date,
    split_arxiv_id,
)

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 2000

# Snapshot key -> PaperRecord field, for the plain text fields.
_TEXT_FIELDS = {
    "comments": "comments",
    "journal-ref": "journal_ref",
    "doi": "doi",
    "license": "license",
    "submitter": "submitter",
}


_MONTHS = {name: number for number, name in enumerate(calendar.month_abbr) if name}


def _created(text: object) -> datetime | None:
    """A version date. The snapshot writes "Mon, 2 Apr 2007 19:18:42 GMT";
    reading that shape directly is several times faster than the general
    RFC-822 parser, which still reads anything else."""
    if isinstance(text, str):
        parts = text.split()
        if len(parts) == 6 and parts[5] == "GMT" and parts[2] in _MONTHS:
            try:
                hour, minute, second = parts[4].split(":")
                return datetime(
                    int(parts[3]), _MONTHS[parts[2]], int(parts[1]), int(hour), int(minute), int(second), tzinfo=UTC
                )
            except ValueError:
                pass
    elif text is not None:
        raise MalformedRecord(f"bad date {text!r}")
    return parse_arxiv_date(text)


def _author_name(parts: list) -> str:
    """["Balázs", "C.", ""] -> "C. Balázs"; elements after the third are
    affiliations, which the library keeps beside the name (_affiliations)."""
    names = [clean_name(part) if isinstance(part, str) else "" for part in parts[:3]]
    names += [""] * (3 - len(names))
    return " ".join(name for name in (names[1], names[0], names[2]) if name)


def _affiliations(authors: list[str], parsed: list[list], text: object) -> list[str]:
    if isinstance(text, str) and "(" in text:
        names, affiliations = parse_authors(text)
        if len(names) == len(authors):
            return affiliations
    listed = [[a for a in p[3:] if isinstance(a, str) and not is_reference(a)] for p in parsed]
    return author_affiliations(authors, listed)


def _versions(arxiv_id: str, raw: object) -> list[VersionRecord]:
    if not isinstance(raw, list) or not raw:
        raise MalformedRecord(f"{arxiv_id}: no versions")
    versions = []
    for item in raw:
        label = item.get("version", "") if isinstance(item, dict) else ""
        if not label.startswith("v") or not label[1:].isdecimal():
            raise MalformedRecord(f"{arxiv_id}: bad version label {label!r}")
        versions.append(VersionRecord(number=int(label[1:]), submitted=_created(item.get("created"))))
    return versions


def parse_snapshot_line(line: bytes | str) -> PaperRecord:
    """One snapshot line as a PaperRecord; MalformedRecord if unusable."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise MalformedRecord(f"not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise MalformedRecord("not a JSON object")
    raw_id = data.get("id")
    if not isinstance(raw_id, str) or not raw_id:
        raise MalformedRecord("no id")
    arxiv_id, _ = split_arxiv_id(raw_id)
    title = clean_title(data.get("title"))
    if not title:
        raise MalformedRecord(f"{arxiv_id}: no title")
    parsed = data.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        named = [(name, p) for name, p in ((_author_name(p), p) for p in parsed if isinstance(p, list)) if name]
        authors = [name for name, _ in named]
        affiliations = _affiliations(authors, [p for _, p in named], data.get("authors"))
    else:
        authors, affiliations = parse_authors(data.get("authors"))
    record = PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract=clean_abstract(data.get("abstract")),
        authors=authors,
        categories=list(dict.fromkeys((data.get("categories") or "").split())),
        versions=_versions(arxiv_id, data.get("versions")),
        affiliations=affiliations,
    )
    for key, attribute in _TEXT_FIELDS.items():
        setattr(record, attribute, clean_line(str(data.get(key) or "")))
    return checked(record)


def category_matcher(codes: Iterable[str]) -> Callable[[list[str]], bool] | None:
    """Keep a record having any category equal to a code or inside it
    (`cs` keeps `cs.LG`, `cs.AI`, ...). No codes: keep everything (None)."""
    wanted = tuple(code.strip() for code in codes if code.strip())
    if not wanted:
        return None
    prefixes = tuple(f"{code}." for code in wanted)

    def matches(categories: list[str]) -> bool:
        return any(c in wanted or c.startswith(prefixes) for c in categories)

    return matches


@dataclass
class ImportResult:
    lines: int = 0
    kept: int = 0
    filtered_out: int = 0
    skipped: int = 0  # malformed lines
    new_papers: int = 0
    new_versions: int = 0
    updated: int = 0
    unchanged: int = 0
    seconds: float = 0.0

    def add(self, result: UpsertResult) -> None:
        self.new_papers += result.new_papers
        self.new_versions += result.new_versions
        self.updated += result.updated
        self.unchanged += result.unchanged

    @property
    def rate(self) -> float:
        return self.lines / self.seconds if self.seconds > 0 else 0.0


ProgressCallback = Callable[[ImportResult], None]


def open_snapshot(path: str | Path) -> IO[bytes]:
    """The file as bytes; `.gz` files are decompressed on the fly."""
    path = Path(path)
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    return path.open("rb")


@dataclass(slots=True)
class _Batch:
    """Records to store, and the reader's counts as of the batch's last line.
    `last`: the rest of the file (possibly no records)."""

    records: list[PaperRecord]
    lines: int
    kept: int
    filtered_out: int
    skipped: int
    malformed: list[tuple[int, str]]  # (line number, why) of the lines skipped in this batch
    last: bool = False


def _batches(lines: Iterable[bytes], keep: Callable[[list[str]], bool] | None, batch_size: int) -> Iterator[_Batch]:
    """Read, parse and filter lines into batches of `batch_size` records; the
    last batch holds the rest (possibly none) and the counts at the end of
    the file. Runs in the read-ahead process: no database here, and what is
    skipped travels with the batch to be logged by the importer."""
    kept = filtered_out = skipped = 0
    number = 0
    records: list[PaperRecord] = []
    malformed: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse_snapshot_line(line)
        except MalformedRecord as exc:
            skipped += 1
            malformed.append((number, str(exc)))
            continue
        if keep is not None and not keep(record.categories):
            filtered_out += 1
            continue
        kept += 1
        records.append(record)
        if len(records) >= batch_size:
            yield _Batch(records, number, kept, filtered_out, skipped, malformed)
            records, malformed = [], []
    yield _Batch(records, number, kept, filtered_out, skipped, malformed, last=True)


def import_snapshot(
    *,
    lines: Iterable[bytes],
    categories: Iterable[str] = (),
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: ProgressCallback | None = None,
) -> ImportResult:
    """Stream snapshot lines into the library, one upsert transaction per
    batch. A malformed line is logged with its number and skipped.

    Lines are read and parsed one batch ahead in a child process
    (harvest/readahead.py: JSON decoding holds the GIL, so a thread would
    only take turns with the upsert) while this process stores the current
    batch and plans the next (harvest/pipeline.py); the counts in the result
    passed to `progress` are those as of the last line of the batch just
    stored. Reading errors (OSError, EOFError from a
    damaged .gz) are raised here after the batches before them are stored.

    Sends no `versions_created` signal: a bootstrap loads history, and guided
    readings are written for versions that arrive through the live sources."""
    result = ImportResult()
    started = time.monotonic()
    batches = reading_ahead(
        _batches(lines, category_matcher(categories), batch_size), mode=READ_AHEAD_PROCESS, name="snapshot-reader"
    )
    with closing(planned_ahead(batches, records_of=lambda batch: batch.records)) as planned:
        for batch, plan in planned:
            for number, reason in batch.malformed:
                logger.warning("snapshot line %d skipped: %s", number, reason)
            if batch.records:
                result.add(paper_upsert_many(records=batch.records, plan=plan))
            result.lines, result.kept = batch.lines, batch.kept
            result.filtered_out, result.skipped = batch.filtered_out, batch.skipped
            result.seconds = time.monotonic() - started
            if progress is not None and not batch.last:
                progress(result)
    return result
