"""The library's search box does what people type into it: an arXiv id, an
arXiv address or a DOI leads to the paper's page (or says, in the reader's
language, that the library lacks it and links to it elsewhere); an author's
name keeps its results and offers that author's papers; relevance without a
query falls back to the default order with a note. The API's `q` stays a
search."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from rest_framework.test import APIClient

from harvest.services import paper_upsert_many
from portal.arxiv_ids import papers_with_doi
from tests import factories as f

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 12, 1, 0, tzinfo=UTC)


def english(client):
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def library():
    with_doi = f.record("2306.07400", title="Sparse attention", versions=2, authors=["Ada Lovelace", "Alan Turing"])
    with_doi.doi = "10.1103/PhysRevD.76.013009"
    two_dois = f.record("hep-th/9901001", title="Strings", authors=["Grace Hopper"], categories=["hep-th"])
    two_dois.doi = "10.1364/JOSAA.23.002578 10.1364/JOSAA.32.002407"
    f.store(
        with_doi,
        two_dois,
        f.record("math.GT/0309136", title="Knots", categories=["math.GT"], authors=["Jean-Pierre Serre"]),
        f.record("2306.07401", title="Lovelace engines", abstract="Ada Lovelace and the analytical engine."),
        at=AT,
    )


@pytest.mark.parametrize(
    ("query", "page"),
    [
        ("2306.07400", "/papers/2306.07400/"),
        (" 2306.07400v2 ", "/papers/2306.07400v2/"),
        ("arXiv:2306.07400", "/papers/2306.07400/"),
        ("ARXIV:2306.07400v1", "/papers/2306.07400v1/"),
        ("https://arxiv.org/abs/2306.07400v2", "/papers/2306.07400v2/"),
        ("http://arxiv.org/pdf/2306.07400.pdf", "/papers/2306.07400/"),
        ("arxiv.org/pdf/2306.07400v1", "/papers/2306.07400v1/"),
        ("https://export.arxiv.org/abs/2306.07400", "/papers/2306.07400/"),
        ("https://arxiv.org/pdf/2306.07400v2.pdf?download=1", "/papers/2306.07400v2/"),
        ("10.48550/arXiv.2306.07400", "/papers/2306.07400/"),
        ("https://doi.org/10.48550/arXiv.2306.07400", "/papers/2306.07400/"),
        ("hep-th/9901001", "/papers/hep-th/9901001/"),
        ("math.GT/0309136v1", "/papers/math.GT/0309136v1/"),
        ("https://arxiv.org/abs/math.GT/0309136", "/papers/math.GT/0309136/"),
    ],
)
def test_an_arxiv_id_or_address_leads_to_the_paper_page(client, library, query, page):
    response = client.get("/papers/", {"q": query, "category": "cs.LG"})
    assert response.status_code == 302
    assert response["Location"] == page
    assert client.get(page).status_code == 200


@pytest.mark.parametrize(
    ("query", "arxiv_id"),
    [
        ("10.1103/PhysRevD.76.013009", "2306.07400"),
        ("10.1103/physrevd.76.013009", "2306.07400"),  # DOIs compare without case
        ("https://doi.org/10.1103/PhysRevD.76.013009", "2306.07400"),
        ("doi:10.1364/josaa.23.002578", "hep-th/9901001"),  # either of a paper's DOIs
        ("https://dx.doi.org/10.1364/JOSAA.32.002407", "hep-th/9901001"),
    ],
)
def test_a_doi_leads_to_the_paper_that_carries_it(client, library, query, arxiv_id):
    response = client.get("/papers/", {"q": query})
    assert response.status_code == 302
    assert response["Location"] == f"/papers/{arxiv_id}/"


def test_a_doi_is_not_matched_by_a_part_of_it(library):
    assert not papers_with_doi("10.1364/JOSAA.23").exists()
    assert not papers_with_doi("10.1103/PhysRevD.76.01300").exists()
    assert papers_with_doi("10.1364/JOSAA.32.002407").count() == 1


def test_an_arxiv_paper_not_in_the_library_is_said_so_with_a_link_to_arxiv(client, library):
    response = client.get("/papers/", {"q": "arXiv:2401.99999v2"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "论文库中还没有 arXiv:2401.99999v2。" in page
    assert '<a href="https://arxiv.org/abs/2401.99999v2" rel="noopener noreferrer">在 arXiv 上查看 →</a>' in page
    assert 'class="paper-card"' not in page
    assert 'value="arXiv:2401.99999v2"' in page  # the box keeps what was typed

    page = english(client).get("/papers/", {"q": "https://arxiv.org/abs/2401.99999"}).content.decode()
    assert "arXiv:2401.99999 is not in the library." in page
    assert '<a href="https://arxiv.org/abs/2401.99999" rel="noopener noreferrer">See it on arXiv →</a>' in page


def test_a_doi_not_in_the_library_is_said_so_with_a_link_to_doi_org(client, library):
    page = client.get("/papers/", {"q": "10.1145/3292500.3330701"}).content.decode()
    assert "论文库中没有 DOI 为 10.1145/3292500.3330701 的论文。" in page
    assert '<a href="https://doi.org/10.1145/3292500.3330701" rel="noopener noreferrer">到 doi.org 查看 →</a>' in page

    page = english(client).get("/papers/", {"q": "https://doi.org/10.1145/3292500.3330701"}).content.decode()
    assert "No paper in the library has the DOI 10.1145/3292500.3330701." in page
    assert "Look it up at doi.org →" in page


def test_a_version_the_library_lacks_links_to_the_paper_and_to_arxiv(client, library):
    page = client.get("/papers/", {"q": "2306.07400v5"}).content.decode()
    assert "论文库中有 arXiv:2306.07400，但还没有它的第 5 版。" in page
    assert '<a href="/papers/2306.07400/">库中的这篇论文</a>' in page
    assert 'href="https://arxiv.org/abs/2306.07400v5"' in page
    page = english(client).get("/papers/", {"q": "2306.07400v5"}).content.decode()
    assert "The library has arXiv:2306.07400, but not its version 5." in page


def test_an_author_name_keeps_the_results_and_offers_the_author_filter(client, library):
    page = client.get("/papers/", {"q": "ada  LOVELACE"}).content.decode()
    assert 'data-arxiv-id="2306.07401"' in page  # the search's own result
    assert '<a href="/papers/?author=Ada%20Lovelace">只看作者 Ada Lovelace 的论文</a>' in page
    page = english(client).get("/papers/", {"q": "Jean-Pierre Serre"}).content.decode()
    assert '<a href="/papers/?author=Jean-Pierre%20Serre">Only papers by Jean-Pierre Serre</a>' in page


@pytest.mark.parametrize(
    "params",
    [
        {"q": "Lovelace"},  # one word
        {"q": "Ada Lovelace -engines"},  # a search operator
        {"q": '"Ada Lovelace"'},
        {"q": "Ada OR Lovelace"},
        {"q": "Charles Babbage"},  # no such author in the library
        {"q": "Ada Lovelace", "author": "ada lovelace"},  # already filtered by her
    ],
)
def test_the_author_filter_is_offered_only_for_an_author_s_exact_name(client, library, params):
    page = client.get("/papers/", params).content.decode()
    assert "data-author-offer" not in page


def test_relevance_without_a_query_is_the_default_order_with_a_note(client, library):
    default = client.get("/papers/").content.decode()
    response = client.get("/papers/", {"sort": "relevance"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "按相关度排序需要搜索词，所以这些论文按版本更新时间排序。" in page
    assert "按版本更新时间排序 ·" in page  # the count line names the order used
    ids = [chunk.split('"', 1)[0] for chunk in page.split('data-arxiv-id="')[1:]]
    assert ids == [chunk.split('"', 1)[0] for chunk in default.split('data-arxiv-id="')[1:]]
    assert "data-sort-fell-back" not in default
    english_page = english(client).get("/papers/", {"sort": "relevance", "q": " "}).content.decode()
    assert "Sorting by relevance needs a search query, so these papers are sorted by version update time." in (
        english_page
    )


def test_the_api_answers_relevance_without_a_query_in_the_default_order(library):
    api = APIClient()
    default = api.get("/api/v1/papers/").json()["results"]
    response = api.get("/api/v1/papers/", {"sort": "relevance"})
    assert response.status_code == 200
    assert [p["arxiv_id"] for p in response.json()["results"]] == [p["arxiv_id"] for p in default]


def test_the_api_keeps_searching_for_what_the_box_would_jump_to(library):
    response = APIClient().get("/api/v1/papers/", {"q": "2306.07400"})
    assert response.status_code == 200
    assert isinstance(response.json()["results"], list)


def test_a_name_query_costs_one_more_query_at_most(client, library, django_assert_max_num_queries):
    client.get("/papers/")  # warm the overview cache the count line reads
    # 11: the hybrid search's keyword rankings (all words, any word), its
    # vectors' and its readings' vectors' reads, and the author look-up.
    with django_assert_max_num_queries(11):
        assert client.get("/papers/", {"q": "Ada Lovelace"}).status_code == 200


def test_a_doi_is_found_through_its_index_on_postgresql(library):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's index")
    sql, params = papers_with_doi("10.1103/physrevd.76.013009").values("id").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "paper_doi_words_idx" in plan


def test_a_recently_stored_paper_is_reachable_by_its_id_before_the_index_pass(client, db):
    f.store(f.record("2311.00001"), at=AT)
    paper_upsert_many(records=[f.record("2311.00002")], now=AT + timedelta(hours=1))
    assert client.get("/papers/", {"q": "2311.00002"})["Location"] == "/papers/2311.00002/"


def test_a_chinese_query_shows_its_english_gloss_under_the_box(client, library):
    page = client.get("/papers/", {"q": "transformer 剪枝"}).content.decode()
    assert "也按英文检索：transformer pruning" in page
    page = english(client).get("/papers/", {"q": "稀疏 注意力"}).content.decode()
    assert "Also searched in English: sparse attention" in page
    # The keyword mode reads the query as written, and an English query has nothing to gloss.
    assert "data-gloss" not in client.get("/papers/", {"q": "稀疏 注意力", "mode": "keyword"}).content.decode()
    assert "data-gloss" not in client.get("/papers/", {"q": "sparse attention"}).content.decode()
