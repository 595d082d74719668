"""The library as JSON lines, one paper a line, so users get their data out and
checks can compare a library with what a source served.

Papers are read in chunks in id order; each chunk's versions come in one bulk
query (a chunked prefetch), so the number of queries grows with the number of
chunks, not of papers, and memory stays bounded by one chunk.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, time

from django.db.models import Prefetch

from harvest.models import Paper, Version

DEFAULT_CHUNK_SIZE = 1000


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z") if value else None


def paper_as_dict(paper: Paper) -> dict:
    """One exported paper; `paper.versions` should be prefetched."""
    return {
        "id": paper.arxiv_id,
        "title": paper.title,
        "abstract": paper.abstract,
        "authors": paper.authors,
        "affiliations": paper.author_affiliations,
        "categories": paper.categories,
        "published": _iso(paper.published),
        "updated": _iso(paper.updated),
        "included_at": _iso(paper.included_at),
        "ai_related": paper.ai_related,
        "comments": paper.comments,
        "journal_ref": paper.journal_ref,
        "doi": paper.doi,
        "license": paper.license,
        "versions": [
            {"version": version.label, "submitted": _iso(version.submitted), "size": version.size}
            for version in paper.versions.all()
        ],
    }


def export_lines(*, since: date | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE) -> Iterator[str]:
    """JSON lines (without newline) for every paper, or for papers whose latest
    version date (`Paper.updated`) is on or after `since` (UTC midnight)."""
    papers = Paper.objects.order_by("id").prefetch_related(
        Prefetch("versions", queryset=Version.objects.only("id", "paper_id", "number", "submitted", "size"))
    )
    if since is not None:
        papers = papers.filter(updated__gte=datetime.combine(since, time.min, tzinfo=UTC))
    for paper in papers.iterator(chunk_size=chunk_size):
        yield json.dumps(paper_as_dict(paper), ensure_ascii=False)
