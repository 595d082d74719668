"""Passage-level precision of "ask" (docs/fulltext.md, "Answers from
passages"): of the sections an answer cites, the share whose passages given
to the model contain the cited claim's key terms.

A claim's key terms are its distinct words of four or more letters (digits
count: "2030", "GPT-4o") outside a list of common words, the citations taken
out; a cited section supports the claim when at least half of them occur in
the passages of that section that were given (heading and text). A claim with
no such term (a Chinese sentence about an English paper has few) is counted
apart, not as a miss.

The measure runs on the recorded full texts (tests/fixtures/fulltext/, real
arXiv HTML and PDFs) stored in the library for the run only, each asked
about in English and Chinese through the whole service.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from digests.models import Ask
from harvest.embeddings.services import embed_papers
from harvest.fulltext.document import Document
from harvest.fulltext.html_parser import parse_html
from harvest.fulltext.pdf_parser import parse_pdf
from harvest.fulltext.selectors import passages_of
from harvest.fulltext.services import store_document, store_passages
from harvest.models import Paper, Version
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord, VersionRecord

SUPPORT_SHARE = 0.5
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]")
_CITATION = re.compile(r"\[[^\]]*arXiv[^\]]*\]")
_COMMON = frozenset(
    re.findall(
        r"\w+",
        """about above after also among amongst another because been before being below between both cannot could does
        doing during each either from further have having here into itself just many more most much must such than
        that their them then there these they this those through under until upon very were what when where which
        while will with within would your paper papers study work show shows shown used using uses results result
        method methods approach model models propose proposes proposed find finds found authors section""",
    )
)


def fixtures_directory() -> Path:
    return Path(settings.BASE_DIR) / "tests" / "fixtures" / "fulltext"


def key_terms(claim: str) -> set[str]:
    text = _CITATION.sub(" ", claim)
    return {
        word.casefold()
        for word in _WORD.findall(text)
        if (len(word) >= 4 or any(c.isdigit() for c in word)) and word.casefold() not in _COMMON
    }


def supported(claim: str, passages: list[str]) -> bool | None:
    """Whether the passages hold at least half the claim's key terms; None
    for a claim without key terms."""
    terms = key_terms(claim)
    if not terms:
        return None
    words = {word.casefold() for text in passages for word in _WORD.findall(text)}
    return len(terms & words) >= SUPPORT_SHARE * len(terms)


@dataclass
class PassagePrecision:
    cited: int = 0
    supported: int = 0
    without_terms: int = 0

    @property
    def precision(self) -> float:
        return self.supported / self.cited if self.cited else 0.0

    def add(self, asked: Ask) -> None:
        """Every section an answer's points cite, against the passages of it given."""
        given: dict[tuple[str, int, str], list[int]] = {}
        for item in asked.retrieved:
            for passage in item.get("passages", []):
                key = (item["arxiv_id"], item["version"], passage["section"])
                given.setdefault(key, []).append(passage["position"])
        for point in asked.answer.get("points", []):
            for citation in point["citations"]:
                if not citation.get("section"):
                    continue
                arxiv_id, version = citation["arxiv_id"], citation["version"]
                positions = given.get((arxiv_id, version, citation["section"]), [])
                verdict = supported(point["text"], passages_of(arxiv_id=arxiv_id, version=version, positions=positions))
                if verdict is None:
                    self.without_terms += 1
                    continue
                self.cited += 1
                self.supported += verdict

    def line(self) -> str:
        return (
            f"passage-level precision: {self.supported} of {self.cited} cited sections hold the claim's key terms "
            f"({self.precision:.0%}); {self.without_terms} claims without key terms not counted"
        )


def fixture_questions() -> list[dict[str, Any]]:
    return json.loads((fixtures_directory() / "questions.json").read_text(encoding="utf-8"))


def _document(name: str) -> Document:
    data = (fixtures_directory() / name).read_bytes()
    if name.endswith(".html.gz"):
        return parse_html(gzip.decompress(data))
    return parse_pdf(
        data, max_pages=settings.PAPERTRAIL_FULLTEXT_MAX_PAGES, seconds=settings.PAPERTRAIL_FULLTEXT_SECONDS
    )


def store_fixture_full_texts(fixtures: list[dict[str, Any]]) -> dict[str, Paper]:
    """Each fixture's paper stored with its version's full text read and cut
    into passages (the caller rolls them back)."""
    documents = {item["arxiv_id"]: (item, _document(item["file"])) for item in fixtures}
    paper_upsert_many(
        records=[
            PaperRecord(
                arxiv_id=arxiv_id,
                title=document.title or item["title"],
                abstract=document.abstract,
                authors=["Recorded Fixture"],
                categories=["cs.CL"],
                versions=[VersionRecord(number=n) for n in range(1, item["version"] + 1)],
            )
            for arxiv_id, (item, document) in documents.items()
        ]
    )
    index_pending_papers()
    papers = Paper.objects.in_bulk(list(documents), field_name="arxiv_id")
    embed_papers(paper_ids=[paper.pk for paper in papers.values()])
    for arxiv_id, (item, document) in documents.items():
        version = Version.objects.get(paper=papers[arxiv_id], number=item["version"])
        store_document(version=version, document=document)
        store_passages(version_id=version.pk)
    return papers
