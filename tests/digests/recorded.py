"""Papers from the recorded arXiv API responses (tests/fixtures/arxiv_api/*.json),
as the PaperRecords the harvest stores: real titles, abstracts and comments."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from lxml import etree

from harvest.source_records import PaperRecord, VersionRecord, clean_abstract, clean_title, split_arxiv_id

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "arxiv_api"
_NS = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}


def _entries(body: bytes):
    root = etree.fromstring(body)
    yield from root.iterfind("a:entry", _NS)


@cache
def recorded_papers() -> tuple[PaperRecord, ...]:
    """Every distinct paper with an abstract in the recorded API responses."""
    papers: dict[str, PaperRecord] = {}
    for path in sorted(FIXTURES.glob("*.json")):
        wrapper = json.loads(path.read_text())
        if wrapper.get("status_code") != 200:
            continue
        for entry in _entries(wrapper["body"].encode()):
            raw_id = entry.findtext("a:id", default="", namespaces=_NS)
            if "/abs/" not in raw_id:
                continue
            arxiv_id, number = split_arxiv_id(raw_id.rsplit("/abs/", 1)[1])
            abstract = clean_abstract(entry.findtext("a:summary", default="", namespaces=_NS))
            if not abstract or arxiv_id in papers:
                continue
            categories = [c.get("term") for c in entry.iterfind("a:category", _NS) if c.get("term")]
            papers[arxiv_id] = PaperRecord(
                arxiv_id=arxiv_id,
                title=clean_title(entry.findtext("a:title", default="", namespaces=_NS)),
                abstract=abstract,
                authors=[a.findtext("a:name", default="", namespaces=_NS) for a in entry.iterfind("a:author", _NS)],
                categories=categories,
                comments=entry.findtext("arxiv:comment", default="", namespaces=_NS) or "",
                versions=[VersionRecord(number=n) for n in range(1, (number or 1) + 1)],
            )
    return tuple(papers.values())
