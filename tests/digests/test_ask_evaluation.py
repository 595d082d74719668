"""The ask measure on two needs of the real collection: the context's
precision, recall and hit, every shown citation among the retrieved papers
while the fake model's invented one is removed, and latencies that include
the fake model's fixed delay; the command prints the table."""

from __future__ import annotations

import numpy as np
import pytest

from digests.ask import evaluation
from digests.ask.evaluation import FAKE_DELAY_SECONDS, evaluate_ask
from digests.ask.passage_evaluation import fixture_questions, key_terms, supported
from harvest.fulltext import chunks
from harvest.models import Paper
from harvest.search_evaluation import STYLES, Collection
from tests.digests.ask_library import collection_vectors
from tests.harvest.fulltext_passages import ARXIV_ID, TEST_PAPER_WORDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_collection(settings, tmp_path) -> Collection:
    settings.VAR_DIR = tmp_path
    full = Collection.load()
    needs = [need for need in full.needs if need.id in ("n03", "n19")]
    wanted = {arxiv_id for need in needs for arxiv_id in need.relevant}
    return Collection([paper for paper in full.papers if paper["arxiv_id"] in wanted], needs)


def test_the_measure_reports_context_quality_valid_citations_and_latency(small_collection):
    known = collection_vectors()  # the real model's vectors of these papers, from the collection's cache file
    vectors = np.stack([known[paper["arxiv_id"]] for paper in small_collection.papers])
    report = evaluate_ask(small_collection, k=5, vectors=vectors, passages=False)

    assert set(report.precision) == {
        (lang, style) for lang in ("en", "zh") for style in ("keywords", "question", "paraphrase")
    }
    # Only the two needs' papers are in the library: each context is theirs, and most of it the need's own.
    assert report._mean([v for vs in report.precision.values() for v in vs]) > 0.5
    assert all(value == 1.0 for values in report.hit.values() for value in values)
    assert len(report.latencies_ms) == 4 and min(report.latencies_ms) >= FAKE_DELAY_SECONDS * 1000
    assert report.shown_citations == 4 * 3 and report.valid_citations == report.shown_citations
    assert report.dropped_citations == 4 * 2  # the invented citation, inline and structured, in each answer
    table = report.table()
    assert "precision@5 / recall@5 / hit@5" in table and "(100%)" in table and "p95" in table
    assert "passage-level" not in table  # no full text in this library
    # The spread is across needs: a need's three styles are averaged first.
    assert report.needs == ["n03", "n19"] and "recall@5 ± its standard error across needs (2 needs)" in table
    by_need = report.recall_by_need("zh")
    assert len(by_need) == 2 and by_need[0] == pytest.approx(sum(report.recall[("zh", s)][0] for s in STYLES) / 3)
    assert report.recall_spread("zh").startswith(f"{sum(by_need) / 2:.2f} ± ")


def test_passage_level_precision_on_the_recorded_full_texts(monkeypatch, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    monkeypatch.setattr(chunks, "PAPER_WORDS", TEST_PAPER_WORDS)
    html_and_pdf = [item for item in fixture_questions() if item["arxiv_id"] in (ARXIV_ID, "2304.02623")]
    monkeypatch.setattr(evaluation, "fixture_questions", lambda: html_and_pdf)
    report = evaluation.evaluate_ask(Collection([], []), k=5, vectors=np.zeros((0, 1)), answers=False)

    # Two papers, two languages, within the library and about each paper: eight answers, each citing three
    # passages with their own first sentences and one under another section.
    measured = report.passages
    assert measured.cited + measured.without_terms == 8 * 4
    assert measured.cited >= 28 and 0.7 <= measured.precision < 1.0
    assert measured.supported >= 8 * 3 - measured.without_terms
    assert "passage-level precision" in report.table()
    assert not Paper.objects.exists()  # rolled back


def test_a_claim_is_supported_by_a_passage_holding_half_its_key_terms():
    passage = "Models finetuned on risky choices describe themselves as bold and aggressive in Section 3.1."
    assert key_terms("They call themselves bold [arXiv:2501.11120 v1 §3.1].") == {"call", "themselves", "bold"}
    assert supported("Finetuned models describe themselves as bold.", [passage]) is True
    assert supported("Reversal training elicits the trigger word 2030.", [passage]) is False
    assert supported("这是一个结论。", [passage]) is None
