"""Real recorded papers in the library for the recommendation tests: the
arXiv API page for "testing" (software testing, cs.SE and neighbours) and
the stat announcement feed of 2024-03-26 (statistics, many cross-listed with
cs), stored through the real parsers and upsert a day ago, dated as that day's
harvest would bring them (tests.factories.dated_by_harvest)."""

from __future__ import annotations

import json
from pathlib import Path

from accounts.models import User
from accounts.records.models import Record
from harvest.models import Paper
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord
from harvest.sources.arxiv_api import records_from_atom
from harvest.sources.arxiv_rss import parse_feed
from tests.accounts.conftest import ago
from tests.factories import dated_by_harvest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def real_records() -> list[PaperRecord]:
    body = json.loads((FIXTURES / "arxiv_api/q_testing_s0_m100_cfe7536492ca.json").read_bytes())["body"]
    records = records_from_atom(body.encode("utf-8"))
    records += parse_feed((FIXTURES / "arxiv_rss/arxiv_rss_stat_2024-03-26_emanuelealiverti.xml").read_bytes()).records
    unique = {}
    for record in records:
        unique.setdefault(record.arxiv_id, record)
    return list(unique.values())


def store_real_papers() -> list[Paper]:
    at = ago(days=1)
    paper_upsert_many(records=dated_by_harvest(real_records(), at), now=at)
    return list(Paper.objects.order_by("arxiv_id"))


def topic(papers: list[Paper], primary: str) -> list[Paper]:
    return [paper for paper in papers if paper.primary_category == primary]


def saved_ids(user: User) -> set[int]:
    return set(Record.objects.filter(user=user).values_list("paper_id", flat=True))
