"""bench/search_baseline.py on real recorded papers: the known-item queries,
the TF-IDF scan, the library's search as the page runs it, and precision."""

from __future__ import annotations

import pytest

from bench import search_baseline
from harvest.models import Paper

pytestmark = pytest.mark.django_db


def test_the_real_papers_come_from_both_fixtures_once_each():
    records = search_baseline.real_records()
    ids = [record.arxiv_id for record in records]

    assert len(ids) == len(set(ids))
    assert len(ids) > 200  # the Kaggle sample's 200 lines and the API pages
    assert "2202.12139" in ids  # an API fixture's paper ("Testing Deep Learning Models: …")


def test_a_known_item_query_is_the_titles_rarest_words_in_its_order():
    frequencies = {"testing": 900, "deep": 5000, "learning": 8000, "models": 7000, "comparative": 40, "study": 2000}

    query = search_baseline.known_item_query(
        "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques", frequencies
    )

    # "multiple" and "techniques" never occur elsewhere (frequency 0): rarest first, ties by length.
    assert query == "comparative multiple techniques"


def test_precision_counts_the_known_paper_in_the_first_ten_only():
    ranked = {
        "a": ["x", "a"],
        "b": [*"0123456789", "b"],  # eleventh
        "c": [],
        "d": ["d"],
    }

    assert search_baseline.precision(ranked) == 0.5
    assert search_baseline.precision(ranked, at=11) == 0.75
    assert search_baseline.precision({}) == 0.0


def test_the_tfidf_scan_and_the_library_find_real_papers_by_their_title_words():
    records = search_baseline.real_records()[:40]
    search_baseline._store_real_papers(records)
    rows = list(Paper.objects.order_by("id").values_list("arxiv_id", "title", "abstract"))
    texts = [f"{title} {abstract}" for _, title, abstract in rows]
    # Forty papers are too few for arxiv-sanity-lite's min_df 5 and max_df 0.1.
    index = search_baseline.TfidfIndex([row[0] for row in rows], texts, min_df=1, max_df=1.0)
    frequencies = search_baseline.document_frequencies(texts)
    queries = {r.arxiv_id: search_baseline.known_item_query(r.title, frequencies) for r in records}

    by_tfidf = {arxiv_id: index.search(query) for arxiv_id, query in queries.items()}
    by_library = {arxiv_id: search_baseline.library_search(query) for arxiv_id, query in queries.items()}

    assert all(len(found) <= search_baseline.TOP for found in by_tfidf.values())
    assert search_baseline.precision(by_library) == 1.0  # every word of the query is in the paper's title
    assert search_baseline.precision(by_tfidf) >= 0.9
    assert index.search("zzzzqqqq") == []
