"""Research records as files: one module per format, each with its writer
and (for the citation formats) its reader.

Writers take ExportItems (accounts/record_export.py reads them) and return
text; readers take text and return a ReadResult, its entries and the entries
they could not read, so that one malformed entry never stops the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


class FileFormatError(ValueError):
    """The whole file is unreadable in the format it claims or seems to be."""


@dataclass(frozen=True, slots=True)
class ExportItem:
    """One saved paper as the writers see it."""

    arxiv_id: str
    title: str
    authors: list[str]
    abstract: str
    primary_category: str
    categories: list[str]
    doi: str  # the first DOI, or ""
    published: datetime | None
    updated: datetime | None
    latest_version: int
    tags: list[str]

    @property
    def year(self) -> int | None:
        # arXiv's own BibTeX takes the year of the latest version.
        when = self.updated or self.published
        return when.year if when else None

    @property
    def url(self) -> str:
        return f"https://arxiv.org/abs/{self.arxiv_id}"


@dataclass(slots=True)
class ImportEntry:
    """What one entry of an imported file says about the paper it names."""

    label: str  # how the result names the entry: its key, id or title
    arxiv_id: str = ""  # without version
    doi: str = ""
    title: str = ""
    tags: list[str] = field(default_factory=list)


@dataclass(slots=True)
class MalformedEntry:
    label: str
    reason: str


@dataclass(slots=True)
class ReadResult:
    entries: list[ImportEntry] = field(default_factory=list)
    malformed: list[MalformedEntry] = field(default_factory=list)
