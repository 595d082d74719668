"""arXiv's bulk metadata snapshot (Kaggle `arxiv-metadata-oai-snapshot.json`).

One JSON object per line with `id, submitter, authors, title, comments,
journal-ref, doi, report-no, categories, license, abstract,
versions[{version, created}], update_date, authors_parsed`. Version dates are
RFC-822 in GMT, as in arXivRaw; `authors_parsed` is `[last, first, suffix,
affiliation?]` with TeX accents already decoded, so names come from there.

The import streams the file line by line and stores it in batches through the
same bulk upsert every source uses, so memory is bounded by one batch and a
second import of the same file writes nothing.
"""

from __future__ import annotations

import gzip
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from harvest.records import (
    MalformedRecord,
    PaperRecord,
    VersionRecord,
    clean_abstract,
    clean_title,
    parse_arxiv_date,
    split_arxiv_id,
    split_authors,
)
from harvest.services import UpsertResult, paper_upsert_many

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


def _author_name(parts: list) -> str:
    """["Bal\u00e1zs", "C.", ""] -> "C. Bal\u00e1zs"; a fourth element is an
    affiliation, which the library does not keep in the name."""
    last, first, suffix = ([str(p or "").strip() for p in parts[:3]] + ["", "", ""])[:3]
    return " ".join(p for p in (first, last, suffix) if p)


def _versions(arxiv_id: str, raw: object) -> list[VersionRecord]:
    if not isinstance(raw, list) or not raw:
        raise MalformedRecord(f"{arxiv_id}: no versions")
    versions = []
    for item in raw:
        label = item.get("version", "") if isinstance(item, dict) else ""
        if not label.startswith("v") or not label[1:].isdigit():
            raise MalformedRecord(f"{arxiv_id}: bad version label {label!r}")
        versions.append(VersionRecord(number=int(label[1:]), submitted=parse_arxiv_date(item.get("created"))))
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
        authors = [name for name in (_author_name(p) for p in parsed if isinstance(p, list)) if name]
    else:
        authors = split_authors(data.get("authors"))
    record = PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract=clean_abstract(data.get("abstract")),
        authors=authors,
        categories=list(dict.fromkeys((data.get("categories") or "").split())),
        versions=_versions(arxiv_id, data.get("versions")),
    )
    for key, attribute in _TEXT_FIELDS.items():
        setattr(record, attribute, " ".join(str(data.get(key) or "").split()))
    return record


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


def _records(
    lines: Iterable[bytes], keep: Callable[[list[str]], bool] | None, result: ImportResult
) -> Iterator[PaperRecord]:
    for number, line in enumerate(lines, start=1):
        result.lines = number
        if not line.strip():
            continue
        try:
            record = parse_snapshot_line(line)
        except MalformedRecord as exc:
            result.skipped += 1
            logger.warning("snapshot line %d skipped: %s", number, exc)
            continue
        if keep is not None and not keep(record.categories):
            result.filtered_out += 1
            continue
        result.kept += 1
        yield record


def import_snapshot(
    *,
    lines: Iterable[bytes],
    categories: Iterable[str] = (),
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: ProgressCallback | None = None,
) -> ImportResult:
    """Stream snapshot lines into the library, one upsert transaction per
    batch. A malformed line is logged with its number and skipped.

    Sends no `versions_created` signal: a bootstrap loads history, and guided
    readings are written for versions that arrive through the live sources."""
    result = ImportResult()
    started = time.monotonic()
    batch: list[PaperRecord] = []
    for record in _records(lines, category_matcher(categories), result):
        batch.append(record)
        if len(batch) >= batch_size:
            result.add(paper_upsert_many(records=batch))
            batch = []
            result.seconds = time.monotonic() - started
            if progress is not None:
                progress(result)
    if batch:
        result.add(paper_upsert_many(records=batch))
    result.seconds = time.monotonic() - started
    return result
