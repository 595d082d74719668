"""A small real library for "ask the library" tests: the judged papers of
three needs of the search evaluation collection (tests/fixtures/search_eval:
flaky tests, long-input attention, generative drug design), stored through
the harvest's upsert, indexed and embedded with the real model; and what a
model answering over it replies (a tool call citing the papers it was given)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from django.utils import timezone

from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.passages import passage_text, text_hash
from harvest.embeddings.services import embed_papers, to_bytes
from harvest.models import Paper, PaperEmbedding
from harvest.search_evaluation import Collection, passage_vectors
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests.digests.fake_anthropic import FakeAnthropic
from tests.factories import record

COLLECTION = Path(__file__).parents[1] / "fixtures" / "search_eval"
NEEDS = ("n03", "n19", "n24")
LABEL = re.compile(r'<paper label="arXiv:([^"\s]+) v(\d+)">')


def needs() -> dict[str, dict]:
    return {need["id"]: need for need in json.loads((COLLECTION / "needs.json").read_text(encoding="utf-8"))}


def store_library(ids: set[str] | None = None) -> dict[str, Paper]:
    """The three needs' relevant papers (or `ids`), stored, indexed and embedded."""
    wanted = ids or {arxiv_id for need_id in NEEDS for arxiv_id in needs()[need_id]["relevant"]}
    papers = []
    with (COLLECTION / "papers.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            paper = json.loads(line)
            if paper["arxiv_id"] in wanted:
                papers.append(paper)
    paper_upsert_many(
        records=[
            record(p["arxiv_id"], title=p["title"], abstract=p["abstract"], categories=p["categories"] or ["cs.LG"])
            for p in papers
        ]
    )
    index_pending_papers()
    _embed_from_collection()
    return {paper.arxiv_id: paper for paper in Paper.objects.all()}


@cache
def collection_vectors() -> dict[str, np.ndarray]:
    """The real model's passage vectors of the collection's papers, from the
    collection's own cache file (checked against the texts' hash, computed
    again by the model when stale): the same vectors embed_papers would
    store, without a minute of embedding per test file on two cores."""
    collection = Collection.load()
    vectors = passage_vectors(collection, get_encoder())
    return {paper["arxiv_id"]: vector for paper, vector in zip(collection.papers, vectors, strict=True)}


def _embed_from_collection() -> None:
    """Each stored paper's embedding as the embedding pass writes it; papers
    not in the collection (a test's own) through the pass itself."""
    encoder, vectors = get_encoder(), collection_vectors()
    rows = [
        PaperEmbedding(
            paper_id=pk,
            model=encoder.name,
            vector=to_bytes(vectors[arxiv_id]),
            text_hash=text_hash(passage_text(title, abstract)),
            embedded_at=timezone.now(),
        )
        for pk, arxiv_id, title, abstract in Paper.objects.values_list("pk", "arxiv_id", "title", "abstract")
        if arxiv_id in vectors
    ]
    PaperEmbedding.objects.bulk_create(rows)
    embed_papers()


def labels_in(params: dict[str, Any]) -> list[tuple[str, int]]:
    """The (arXiv id, version) of every paper in a request's context, in order."""
    return [(arxiv_id, int(number)) for arxiv_id, number in LABEL.findall(params["messages"][0]["content"])]


def question_in(params: dict[str, Any]) -> str:
    found = re.search(r"<question>(.*?)</question>", params["messages"][0]["content"], flags=re.S)
    return found.group(1) if found else ""


def citing_answer(params: dict[str, Any]) -> dict[str, Any]:
    """A well-formed answer in the question's language citing the first two
    papers of the context, inline and structured."""
    given = labels_in(params)[:2]
    chinese = bool(re.search(r"[\u4e00-\u9fff]", question_in(params)))
    points = []
    for arxiv_id, number in given:
        claim = "该论文研究了这一问题并给出方法" if chinese else "This paper studies the question and proposes a method"
        points.append(
            {
                "text": f"{claim} [arXiv:{arxiv_id} v{number}].",
                "citations": [{"arxiv_id": arxiv_id, "version": number}],
            }
        )
    synthesis = "图书馆中有几篇相关论文。" if chinese else "The library holds several papers on this."
    return {"synthesis": synthesis, "points": points}


@contextmanager
def fake_llm(settings, monkeypatch) -> Iterator[FakeAnthropic]:
    """The fake Anthropic API answering questions with `citing_answer`, the
    SDK pointed at it and the project configured with its key."""
    server = FakeAnthropic().start()
    server.reading_for = citing_answer
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    settings.ANTHROPIC_API_KEY = server.api_key
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = 5.0
    try:
        yield server
    finally:
        server.stop()
