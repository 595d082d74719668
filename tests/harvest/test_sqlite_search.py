"""Keyword search in web-search syntax on both databases: quoted phrases, OR,
-exclusions, whole words with English stems, stop words, ranking by relevance.
PostgreSQL reads the query with websearch_to_tsquery; SQLite with
harvest.search_syntax over the FTS5 table of migration 0011, which these tests
hold to the same answers (run them with DATABASE_URL=sqlite:///…)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.http import QueryDict
from rest_framework.test import APIClient

from harvest.filters import PaperFilterSet
from harvest.models import Paper
from harvest.search_index import FTS_TABLE, index_pending_papers, pending_count
from harvest.search_syntax import looks_like_a_name, parse
from harvest.services import paper_upsert_many
from tests.factories import record, store

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 12, 1, 0, tzinfo=UTC)


def found(query: str) -> list[str]:
    """The matches in the FilterSet's order (relevance: a query's default sort)."""
    params = QueryDict(mutable=True)
    params["q"] = query
    params["mode"] = "keyword"  # the keyword syntax itself (hybrid adds papers with some of the words)
    filterset = PaperFilterSet(params)
    assert filterset.is_valid(), filterset.errors
    return [paper.arxiv_id for paper in filterset.qs]


def paper(arxiv_id: str, title: str, abstract: str = "An abstract.", *, day: int = 1):
    return record(arxiv_id, title=title, abstract=abstract, first_submitted=datetime(2026, 10, day, tzinfo=UTC))


@pytest.fixture
def library():
    store(
        paper("2611.00001", "Fast CDMA receivers", "Multi-user detection for CDMA channels."),
        paper("2611.00002", "Graphene transistors", "Electron transport in graphene."),
        paper("2611.00003", "Metamorphic testing of compilers", "We test compilers with metamorphic relations."),
        paper("2611.00004", "Metamorphic testing of quantum programs", "Quantum circuits, metamorphic relations."),
        paper("2611.00005", "Graph neural networks for molecules", "Message passing on molecular graphs."),
        paper("2611.00006", "Neural graph matching", "A neural model that aligns two graphs."),
        paper("2611.00007", "Human pose estimation", "Poses of people in video."),
        paper("2611.00008", "A proposed benchmark", "We proposed a benchmark of tasks."),
        at=AT,
    )


def test_or_between_words_finds_either(library):
    assert sorted(found("CDMA OR graphene")) == ["2611.00001", "2611.00002"]
    assert sorted(found("cdma or graphene")) == ["2611.00001", "2611.00002"]


def test_words_without_or_must_all_occur(library):
    assert found("CDMA graphene") == []
    assert found("metamorphic compilers") == ["2611.00003"]


def test_and_binds_tighter_than_or(library):
    assert sorted(found("metamorphic compilers OR graphene")) == ["2611.00002", "2611.00003"]


def test_a_minus_word_leaves_papers_out(library):
    assert found("metamorphic -quantum") == ["2611.00003"]
    assert found("metamorphic - quantum") == ["2611.00003"]  # as PostgreSQL reads a lone dash


def test_a_minus_phrase_leaves_out_only_that_phrase(library):
    assert sorted(found('graph -"graph matching"')) == ["2611.00005"]


def test_exclusions_alone_find_every_paper_without_the_word(library):
    everything = set(Paper.objects.values_list("arxiv_id", flat=True))
    assert set(found("-metamorphic")) == everything - {"2611.00003", "2611.00004"}
    assert set(found("cdma OR -graph")) == everything - {"2611.00005", "2611.00006"}


def test_a_quoted_phrase_must_occur_as_written(library):
    assert found('"graph neural"') == ["2611.00005"]
    assert sorted(found("graph neural")) == ["2611.00005", "2611.00006"]
    assert found('"neural graph"') == ["2611.00006"]
    assert found('"unclosed phrase') == []


def test_words_match_whole_words_with_english_stems(library):
    assert found("pose") == ["2611.00007"]  # not "proposed"
    assert found("Poses") == ["2611.00007"]
    assert found("POSE") == ["2611.00007"]
    assert found("propose") == ["2611.00008"]
    assert found("graphs") == found("graph")
    assert found("transist") == []  # a prefix is not a word


def test_stop_words_outside_phrases_are_ignored(library):
    assert found("the graphene of") == ["2611.00002"]
    assert found("the of and") == []


@pytest.mark.parametrize(
    "query",
    [
        '""',
        "-",
        "OR",
        "- OR -",
        "title:graphene",
        "NEAR(graph neural)",
        "graph*",
        "^graph",
        "(graph",
        "AND NOT",
        "c++ && || !x",
        "a_b",
        "'",
        "图神经网络",
        "x" * 200,
    ],
)
def test_any_text_is_a_query_never_an_error(library, query):
    found(query)  # no exception from the database's query parser


def test_relevance_puts_title_matches_and_frequent_words_first(db):
    # The newest papers are the least relevant: the order is the ranking, not the date.
    store(
        paper("2611.00101", "Sparse attention", "Sparse attention for long inputs.", day=1),
        paper("2611.00102", "Graph kernels", "Sparse attention, and sparse attention again, in kernels.", day=5),
        paper("2611.00103", "Graph kernels again", "Kernels with attention that is sparse, once.", day=9),
        at=AT,
    )
    assert found("sparse attention") == ["2611.00101", "2611.00102", "2611.00103"]


def test_the_library_page_and_the_api_list_matches_by_relevance(client, db):
    store(
        paper("2611.00201", "Diffusion models", "Diffusion models for diffusion.", day=1),
        paper("2611.00202", "Language models", "Briefly, diffusion.", day=20),
        at=AT,
    )
    page = client.get("/papers/", {"q": "diffusion"}).content.decode()
    assert page.index('data-arxiv-id="2611.00201"') < page.index('data-arxiv-id="2611.00202"')
    assert "按相关度排序" in page
    body = APIClient().get("/api/v1/papers/", {"q": "diffusion"}).json()
    assert [item["arxiv_id"] for item in body["results"]] == ["2611.00201", "2611.00202"]


def test_a_changed_text_is_searched_by_its_new_words_once_indexed(db):
    paper_upsert_many(records=[paper("2611.00301", "Quantum walks")], now=AT)
    assert pending_count() == 1
    index_pending_papers()
    assert found("quantum") == ["2611.00301"]

    paper_upsert_many(records=[paper("2611.00301", "Classical walks")], now=AT + timedelta(hours=1))
    index_pending_papers(batch_size=1)

    assert found("quantum") == []
    assert found("classical") == ["2611.00301"]
    assert found("walks") == ["2611.00301"]


def test_a_paper_is_indexed_once_and_again_when_its_text_changes(db):
    paper_upsert_many(records=[paper(f"2611.{n:05d}", f"Topic {n}") for n in range(400, 405)], now=AT)
    result = index_pending_papers(batch_size=2)
    assert (result.papers, result.batches) == (5, 3)
    paper_upsert_many(records=[paper("2611.00400", "Another topic")], now=AT + timedelta(hours=1))
    assert index_pending_papers().papers == 1
    if connection.vendor == "sqlite":  # its own full-text table keeps one row a paper
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*), count(DISTINCT rowid) FROM {FTS_TABLE}")  # noqa: S608 - constant SQL
            assert cursor.fetchone() == (5, 5)
    assert found("another") == ["2611.00400"]


def test_the_parser_reads_websearch_syntax():
    parsed = parse('deep "neural nets" -quantum OR the -"graph matching" OR', max_words=12)
    assert parsed.fts5_required() == '(("deep" AND "neural nets") NOT ("quantum"))'
    assert parsed.fts5_exclusions() == ['"graph matching"']
    assert parse("the of", max_words=12).matches_nothing
    assert parse("one two three four", max_words=3).fts5_required() == '("one" AND "two" AND "three")'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ada Lovelace", True),
        ("J. R. R. Tolkien", True),
        ("Jean-Pierre O'Brien", True),
        ("Lovelace", False),
        ("one two three four five", False),
        ("graph -neural", False),
        ('"Ada Lovelace"', False),
        ("Ada OR Lovelace", False),
        ("GPT 4", False),
    ],
)
def test_a_name_is_two_to_four_words_without_operators(text, expected):
    assert looks_like_a_name(text) is expected
