"""A real paper's full text in the library for the passage tests: arXiv's own
HTML of 2501.11120v1 (tests/fixtures/fulltext/), parsed, stored as a read
`FullText` and cut into passages embedded by the configured model. The model
remembers what it embedded for the test process (a few dozen passages take
it half a minute on two cores; every test stores the same ones)."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from functools import cache

import numpy as np

from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.services import embed_papers
from harvest.fulltext import chunks
from harvest.fulltext.document import Document
from harvest.fulltext.html_parser import parse_html
from harvest.fulltext.services import store_document, store_passages
from harvest.models import Paper, Version
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord, VersionRecord
from tests.replay_server import fixture_bytes

ARXIV_ID = "2501.11120"
# The first sections (introduction to 3.2, "Make Me Say"): enough for the
# questions the tests ask, in a fraction of the paper's embedding time.
TEST_PAPER_WORDS = 2400


@cache
def html_document() -> Document:
    return parse_html(gzip.decompress(fixture_bytes("fulltext/2501.11120v1.html.gz")))


class RememberingEncoder:
    """The configured model, each text embedded once per test process."""

    _known: dict[str, np.ndarray] = {}

    def __init__(self) -> None:
        self.model = get_encoder()
        self.name, self.dimension = self.model.name, self.model.dimension

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        missing = [text for text in dict.fromkeys(texts) if text not in self._known]
        if missing:
            self._known.update(zip(missing, self.model.embed_passages(missing), strict=True))
        return np.vstack([self._known[text] for text in texts]) if texts else self.model.embed_passages([])

    def embed_query(self, text: str) -> np.ndarray:
        return self.model.embed_query(text)


def store_full_text(
    document: Document, *, arxiv_id: str, title: str = "", abstract: str = "", monkeypatch=None
) -> Version:
    """The paper stored (if new) with its version 1 read as `document` and
    cut into passages (within TEST_PAPER_WORDS words when `monkeypatch` is given)."""
    paper_upsert_many(
        records=[
            PaperRecord(
                arxiv_id=arxiv_id,
                title=title or document.title,
                abstract=abstract or document.abstract,
                authors=["Jan Betley", "Owain Evans"],
                categories=["cs.CL", "cs.LG"],
                versions=[VersionRecord(number=1)],
            )
        ]
    )
    # Searchable as a harvested paper is: its keyword index and its embedding.
    index_pending_papers()
    embed_papers(paper_ids=list(Paper.objects.filter(arxiv_id=arxiv_id).values_list("pk", flat=True)))
    version = Version.objects.select_related("paper").get(paper__arxiv_id=arxiv_id, number=1)
    store_document(version=version, document=document)
    if monkeypatch is not None:
        monkeypatch.setattr(chunks, "PAPER_WORDS", TEST_PAPER_WORDS)
    store_passages(version_id=version.pk, encoder=RememberingEncoder())
    return version


def store_fixture_paper(monkeypatch) -> Version:
    return store_full_text(html_document(), arxiv_id=ARXIV_ID, monkeypatch=monkeypatch)
