"""The rows the bulk upsert reads and writes (papers and versions without the
ORM) and the link rows derived from them, shared by both stores."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import TypeVar

T = TypeVar("T")

# Bound on the number of parameters one IN (...) list carries (SQLite allows
# 32,766; PostgreSQL is happy either way).
IN_CHUNK = 2000

PAPER_FIELDS = (
    "title",
    "abstract",
    "authors",
    "affiliations",
    "categories",
    "primary_category",
    "comments",
    "journal_ref",
    "doi",
    "license",
    "submitter",
    "published",
    "updated",
    "ai_related",
    "latest_version",
    "version_count",
    "search_pending",
    "code_url",
    "venue",
)
VERSION_FIELDS = (
    "paper_id",
    "number",
    "submitted",
    "size",
    "source_type",
    "title",
    "abstract",
    "authors",
    "comments",
    "discovered_at",
)
VERSION_TEXT = ("title", "abstract", "authors", "comments")


class PaperRow:
    """A paper row as the upsert reads and writes it (a Paper without the ORM)."""

    __slots__ = ("arxiv_id", "included_at", "pk", *PAPER_FIELDS)

    def __init__(self, pk: int | None, arxiv_id: str, included_at: datetime, *values) -> None:
        self.pk, self.arxiv_id, self.included_at = pk, arxiv_id, included_at
        _set_fields(self, values)

    def values(self) -> tuple:
        return _get_fields(self)


# Every field at once, in PAPER_FIELDS order (a loop of getattr is slow at
# bulk speed).
_get_fields = operator.attrgetter(*PAPER_FIELDS)


def _set_fields(row: PaperRow, values: tuple) -> None:
    (
        row.title,
        row.abstract,
        row.authors,
        row.affiliations,
        row.categories,
        row.primary_category,
        row.comments,
        row.journal_ref,
        row.doi,
        row.license,
        row.submitter,
        row.published,
        row.updated,
        row.ai_related,
        row.latest_version,
        row.version_count,
        row.search_pending,
        row.code_url,
        row.venue,
    ) = values


class VersionRow:
    __slots__ = ("abstract", "authors", "comments", "number", "paper_id", "pk", "submitted", "title")

    def __init__(self, pk: int, paper_id: int, number: int, submitted: datetime | None, title: str) -> None:
        self.pk, self.paper_id, self.number, self.submitted, self.title = pk, paper_id, number, submitted, title
        self.abstract = self.authors = self.comments = ""


def chunked(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# The longest author name linked: the unique (UPPER(name), name) index holds
# each name twice, and an index entry must fit in a third of a page (2,704
# bytes), so 300 characters of up to four bytes each. No real name is longer;
# a malformed author string may be, and must not stop its page.
AUTHOR_NAME_CHARS = 300


def author_names(papers: list[PaperRow]) -> list[str]:
    """The distinct author names these papers link to, as link_rows stores them."""
    return sorted({name[:AUTHOR_NAME_CHARS] for paper in papers for name in paper.authors})


def _with_affiliations(paper: PaperRow) -> Iterator[tuple[str, str]]:
    affiliations = paper.affiliations
    if len(affiliations) != len(paper.authors):
        affiliations = [""] * len(paper.authors)
    return zip(paper.authors, affiliations, strict=True)


def link_rows(papers: list[PaperRow]) -> tuple[list[tuple[int, int, str, str]], list[tuple[int, str, bool]]]:
    """(paper_id, position, author name, affiliation) and (paper_id, category, is_primary) rows."""
    authorships = [
        (paper.pk, position, name[:AUTHOR_NAME_CHARS], affiliation)
        for paper in papers
        for position, (name, affiliation) in enumerate(_with_affiliations(paper))
    ]
    categories = [
        (paper.pk, code, index == 0) for paper in papers for index, code in enumerate(dict.fromkeys(paper.categories))
    ]
    return authorships, categories
