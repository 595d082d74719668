"""The evaluation's papers: real recorded arXiv metadata only (arXiv's own
`.abs` files of 0704.0001-0704.1001, the recorded arXiv API pages and the
recorded announcement feeds, copied into tests/fixtures/ with their
provenance), read through the project's parsers where it has one. Hugging
Face lists are left out: their papers carry no categories to judge by."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from accounts.recommend.features import PaperText
from harvest.records import MalformedRecord
from harvest.sources.abs_files import abs_records
from harvest.sources.arxiv_api import records_from_atom
from harvest.sources.arxiv_rss import parse_feed

FIXTURES = Path(settings.BASE_DIR) / "tests" / "fixtures"
API_PAGES = (
    "arxiv_api/q_testing_s0_m100_cfe7536492ca.json",
    "arxiv_api/sotawhat_query_all-transformer_AND_cat-cs.LG_max5.atom.xml",
)
FEEDS = (
    "arxiv_rss/arxiv_rss_stat_2024-03-26_emanuelealiverti.xml",
    "arxiv_rss/arxiv_atom_cs.AI_2025-08-20_7entries_zotero-arxiv-daily.xml",
)


def _from_record(record) -> PaperText:
    published = record.published or record.updated or datetime(2000, 1, 1, tzinfo=UTC)
    return PaperText(
        id=record.arxiv_id,
        title=record.title,
        abstract=record.abstract,
        authors=list(record.authors),
        categories=list(record.categories),
        extra={"published": published},
    )


def real_papers(fixtures: Path = FIXTURES) -> list[PaperText]:
    """Every real paper with categories, one per arXiv id, in a fixed order."""
    found: dict[str, PaperText] = {}
    for path in sorted((fixtures / "recommend" / "abs").glob("*.abs")):
        try:
            [record] = abs_records(path)
        except MalformedRecord:
            continue
        found.setdefault(record.arxiv_id, _from_record(record))
    for name in API_PAGES:
        body = (fixtures / name).read_bytes()
        if name.endswith(".json"):
            body = json.loads(body)["body"].encode("utf-8")
        for record in records_from_atom(body):
            found.setdefault(record.arxiv_id, _from_record(record))
    for name in FEEDS:
        feed = parse_feed((fixtures / name).read_bytes())
        day = datetime.combine(feed.announced_on, datetime.min.time(), tzinfo=UTC) if feed.announced_on else None
        for record in feed.records:
            paper = _from_record(record)
            if record.published is None and day is not None:
                paper.extra["published"] = day
            found.setdefault(record.arxiv_id, paper)
    return [paper for paper in found.values() if paper.categories and paper.title]
