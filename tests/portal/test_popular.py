"""The popular sort (热门) of /papers/ and /api/v1/papers/: its order over papers
with known signals, its window, the badges of the signals on every card and
the signals as API fields."""

from __future__ import annotations

import math
import re
from datetime import date, timedelta
from urllib.parse import parse_qs, urlparse

import pytest
from django.db import connection
from django.db.models import Exists, OuterRef
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation
from rest_framework.test import APIClient

from harvest.filters import PaperFilterSet, category_codes, popular_window_start
from harvest.models import Paper, PaperCategory
from harvest.services import community_pick_upsert_many
from harvest.sources.base import PickRecord
from portal.selectors import paper_cards
from portal.templatetags.portal import paper_card
from tests import factories as f

# Calendar: the popular sort ranks the papers of the days before now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]

POPULAR_ORDER = ["2612.00001", "2612.00002", "2612.00003", "2612.00004"]


def ids_on(response) -> list[str]:
    assert response.status_code == 200, response.content
    return re.findall(r'<article class="paper-card" data-arxiv-id="([^"]+)"', response.content.decode())


def api_ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["arxiv_id"] for item in response.json()["results"]]


@pytest.fixture
def signals():
    """Four papers of the last days with known signals, and an older one that
    outscores them all but lies outside the default seven-day window."""
    now = timezone.now()
    recent = now - timedelta(days=4)
    f.store(
        # 2 ln(1 + 50) = 7.86: the community's upvotes alone.
        f.record("2612.00001", first_submitted=recent),
        # code 2 + venue 3 + two revisions 2 = 7.
        f.record(
            "2612.00002",
            first_submitted=recent,
            versions=3,
            version_gap=timedelta(days=1),
            comments="ICLR 2026 oral. Code: https://github.com/org/repo",
        ),
        # code 2 (a Hugging Face model in the abstract).
        f.record("2612.00003", first_submitted=recent, abstract="Weights: https://huggingface.co/org/model."),
        # nothing: a submission is no acceptance.
        f.record("2612.00004", first_submitted=recent, comments="Submitted to NeurIPS 2026"),
        f.record(
            "2609.00001",
            first_submitted=now - timedelta(days=40),
            comments="Accepted at NeurIPS 2026. https://github.com/old/star",
        ),
        at=now,
    )
    hf = f.source("hf_daily")
    community_pick_upsert_many(
        source=hf,
        picks=[
            PickRecord("2612.00001", date(2026, 12, 1), upvotes=50, url="https://huggingface.co/papers/2612.00001"),
            PickRecord("2609.00001", date(2026, 10, 25), upvotes=900, url="https://huggingface.co/papers/2609.00001"),
        ],
    )
    return now


def test_the_page_ranks_the_windows_papers_by_their_signals(client, signals):
    response = client.get("/papers/", {"sort": "popular"})
    assert ids_on(response) == POPULAR_ORDER
    page = response.content.decode()
    assert 'data-popular-window="7"' in page
    assert "热门：最新版本在最近 7 天内的论文" in page
    assert "找到 4 篇论文" in page  # the window's papers, not the library's five
    assert '<option value="popular" selected>热门</option>' in page


def test_the_window_is_a_setting_and_the_page_says_it_in_english(client, signals, settings):
    settings.PAPERTRAIL_POPULAR_WINDOW_DAYS = 60
    client.cookies["django_language"] = "en"
    response = client.get("/papers/", {"sort": "popular"})
    assert ids_on(response) == ["2609.00001", *POPULAR_ORDER]
    assert "Popular: papers whose latest version is from the last 60 days" in response.content.decode()
    settings.PAPERTRAIL_POPULAR_WINDOW_DAYS = 1
    assert ids_on(client.get("/papers/", {"sort": "popular"})) == []


def test_the_popular_sort_combines_with_the_filters(client, signals):
    assert ids_on(client.get("/papers/", {"sort": "popular", "revised": "1"})) == ["2612.00002"]
    assert ids_on(client.get("/papers/", {"sort": "popular", "hf": "1"})) == ["2612.00001"]


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def test_the_api_popular_sort_and_its_fields(api, signals):
    response = api.get("/api/v1/papers/", {"sort": "popular"})
    assert api_ids(response) == POPULAR_ORDER
    items = {item["arxiv_id"]: item for item in response.json()["results"]}
    assert items["2612.00001"]["upvotes"] == 50
    assert items["2612.00001"]["popularity"] == pytest.approx(2 * math.log(51))
    assert items["2612.00002"]["code_url"] == "https://github.com/org/repo"
    assert items["2612.00002"]["venue"] == "ICLR 2026 oral"
    assert items["2612.00002"]["popularity"] == pytest.approx(7.0)
    assert items["2612.00004"]["venue"] == "" and items["2612.00004"]["code_url"] == ""
    # The fields that were there before are still there.
    assert {"arxiv_id", "title", "links", "community_picks", "version_count", "has_revisions", "reading"} <= set(
        items["2612.00001"]
    )
    detail = api.get("/api/v1/papers/2612.00002/").json()
    assert (detail["venue"], detail["code_url"], detail["upvotes"]) == (
        "ICLR 2026 oral",
        "https://github.com/org/repo",
        0,
    )


def test_api_cursor_pages_of_the_popular_sort_neither_repeat_nor_skip(api, signals):
    seen, url = [], "/api/v1/papers/?sort=popular&page_size=1"
    while url:
        page = api.get(url).json()
        seen += [item["arxiv_id"] for item in page["results"]]
        url = page["next"]
    assert seen == POPULAR_ORDER
    first = api.get("/api/v1/papers/?sort=popular&page_size=1").json()["next"]
    cursor = parse_qs(urlparse(first).query)["cursor"][0]
    refused = api.get("/api/v1/papers/", {"sort": "updated", "cursor": cursor})
    assert refused.status_code == 400 and "cursor" in refused.json()["errors"]
    updated_next = api.get("/api/v1/papers/?sort=updated&page_size=1").json()["next"]
    updated_cursor = parse_qs(urlparse(updated_next).query)["cursor"][0]
    refused = api.get("/api/v1/papers/", {"sort": "popular", "cursor": updated_cursor})
    assert refused.status_code == 400 and "cursor" in refused.json()["errors"]


def test_page_cursors_of_the_popular_sort_walk_the_ranking(client, signals):
    recent = signals - timedelta(days=3)
    f.store(*[f.record(f"2612.{n:05d}", first_submitted=recent) for n in range(10, 22)], at=signals)
    first = client.get("/papers/", {"sort": "popular", "size": "10"})
    shown = ids_on(first)
    link = re.search(r'href="\?([^"]*)" rel="next"', first.content.decode()).group(1).replace("&amp;", "&")
    rest = ids_on(client.get("/papers/?" + link))
    # Ties (no signal: the twelve new papers and 2612.00004) by newest id first, across the page break.
    assert len(shown) == 10 and shown + rest == [
        *POPULAR_ORDER[:3],
        *[f"2612.{n:05d}" for n in range(21, 9, -1)],
        "2612.00004",
    ]


@pytest.mark.parametrize("sort", ["hot", "popularity", "Popular"])
def test_an_unknown_sort_is_a_400_naming_the_parameter(api, client, signals, sort):
    response = api.get("/api/v1/papers/", {"sort": sort})
    assert response.status_code == 400
    assert "sort" in response.json()["errors"] and response.json()["detail"].startswith("sort: ")
    page = client.get("/papers/", {"sort": sort})
    # The API names the parameter; the page names the field as its form labels it.
    assert page.status_code == 400 and "排序：" in page.content.decode() and "sort:" not in page.content.decode()


# --- badges -----------------------------------------------------------------------------


def card_of(arxiv_id: str) -> str:
    return str(paper_card({}, paper_cards([f.paper(arxiv_id)])[0]))


def test_every_signal_has_its_badge_on_the_card(signals):
    with translation.override("zh-hans"):
        html = card_of("2612.00002")
    assert (
        '<a class="badge badge--code" href="https://github.com/org/repo" rel="noopener noreferrer nofollow" '
        'title="https://github.com/org/repo" data-badge="code">代码</a>'
    ) in html
    assert 'data-badge="venue">ICLR 2026 oral</span>' in html
    assert '<span class="badge badge--revision">修订 · v3</span>' in html
    with translation.override("en"):
        html = card_of("2612.00001")
    assert (
        '<a class="badge badge--hf" href="https://huggingface.co/papers/2612.00001" rel="noopener noreferrer nofollow" '
        'data-badge="upvotes">HF pick ▲50</a>'
    ) in html
    assert 'data-badge="code"' not in html and 'data-badge="venue"' not in html
    with translation.override("en"):
        assert ">Code</a>" in card_of("2612.00003")


def test_the_badges_escape_what_is_stored_and_keep_only_http_links(signals):
    Paper.objects.filter(arxiv_id="2612.00002").update(venue='<b onclick="x">NeurIPS</b>', code_url="javascript:x()")
    html = card_of("2612.00002")
    assert "<b onclick" not in html
    assert "&lt;b onclick=&quot;x&quot;&gt;NeurIPS&lt;/b&gt;" in html
    assert 'data-badge="code"' not in html and "javascript:" not in html


def test_the_paper_page_shows_the_code_and_venue_badges_too(client, signals):
    page = client.get("/papers/2612.00002/").content.decode()
    assert 'href="https://github.com/org/repo" rel="noopener noreferrer nofollow"' in page
    assert 'data-badge="venue">ICLR 2026 oral</span>' in page


def test_the_popular_sort_ranks_a_searchs_matches_too(api, signals):
    response = api.get("/api/v1/papers/", {"sort": "popular", "q": "abstract", "mode": "keyword"})
    # 2612.00003's abstract is its link; the others say "An abstract."
    assert api_ids(response) == ["2612.00001", "2612.00002", "2612.00004"]


# --- within categories ------------------------------------------------------------------

# (arxiv id, categories, comments, versions): scores 0 to 5, cross-lists, another
# primary archive, an old-style archive and `math-ph`, which the archive `math` is not.
CATEGORY_LIBRARY = [
    ("2612.00101", ["cs.CV"], "Accepted at CVPR 2026", 1),
    ("2612.00102", ["cs.LG", "cs.CV"], "Code: https://github.com/org/b", 1),
    ("2612.00103", ["eess.IV", "cs.CV"], "Accepted at ICCV 2025. Code: https://github.com/org/c", 1),
    ("2612.00104", ["cs.RO"], "", 2),
    ("2612.00105", ["math.OC", "stat.ML"], "https://github.com/org/e", 1),
    ("2612.00106", ["hep-th"], "", 1),
    ("2612.00107", ["cs.CV", "cs.RO"], "", 1),
    ("2612.00108", ["math-ph"], "Accepted at NeurIPS 2026", 1),
    ("2612.00109", ["cs.CL", "math.ST"], "", 3),
]
WITHIN = [
    "category=cs.CV",
    "category=cs.CV&cross_lists=0",
    "category=cs",
    "category=cs&cross_lists=0",
    "category=math",
    "category=math&cross_lists=0",
    "category=cs.RO,stat.ML",
    "category=hep-th,eess",
    "category=cs.CV&ai=1",
    "category=cs.CV,math.OC&cross_lists=0",
]


@pytest.fixture
def categorised():
    """The library above in the window, and a cs.CV paper above them all outside it."""
    now = timezone.now()
    recent = now - timedelta(days=3)
    gap = timedelta(hours=5)
    rows = [
        f.record(arxiv_id, categories=codes, comments=comments, versions=n, first_submitted=recent, version_gap=gap)
        for arxiv_id, codes, comments, n in CATEGORY_LIBRARY
    ]
    outside = f.record(
        "2609.00101",
        categories=["cs.CV"],
        comments="Accepted at CVPR 2026. https://github.com/o/x",
        versions=4,
        first_submitted=now - timedelta(days=60),
    )
    f.store(*rows, outside, at=now)
    return now


def order_by_category_rows(params: str, now) -> list[str]:
    """The popular order as the PaperCategory rows define the category filter."""
    form = PaperFilterSet(QueryDict(params)).form
    assert form.is_valid(), form.errors
    cleaned = form.cleaned_data
    codes = cleaned["category"]
    links = PaperCategory.objects.filter(category_codes(codes), paper=OuterRef("pk"))
    if cleaned.get("cross_lists") is False:
        links = links.filter(is_primary=True)
    papers = Paper.objects.filter(Exists(links), updated__gte=popular_window_start(now))
    if cleaned.get("ai") is not None:
        papers = papers.filter(ai_related=cleaned["ai"])
    return list(papers.order_by("-popularity", "-id").values_list("arxiv_id", flat=True))


def test_the_popular_order_within_categories_is_the_category_rows_order(client, api, categorised):
    cs_cv = ["2612.00103", "2612.00101", "2612.00102", "2612.00107"]
    assert order_by_category_rows("category=cs.CV", categorised) == cs_cv
    assert order_by_category_rows("category=math", categorised) == ["2612.00109", "2612.00105"]
    for params in WITHIN:
        expected = order_by_category_rows(params, categorised)
        assert expected, params
        query = dict(QueryDict(f"sort=popular&{params}").items())
        assert ids_on(client.get("/papers/", query)) == expected, params
        assert api_ids(api.get("/api/v1/papers/", query)) == expected, params
    page = client.get("/papers/", {"sort": "popular", "category": "cs.CV"}).content.decode()
    assert "找到 4 篇论文" in page


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the row's lists are read on PostgreSQL")
def test_the_popular_sort_reads_each_windows_row_lists_instead_of_the_category_rows(client, categorised):
    for params in ("category=cs.CV", "category=cs&cross_lists=0"):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/papers/?sort=popular&{params}").status_code == 200
        window = [q["sql"] for q in queries.captured_queries if '"harvest_paper"."updated" >=' in q["sql"]]
        assert len(window) == 2, window  # the page and its count
        assert not any("harvest_papercategory" in sql for sql in window)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/papers/?category=cs.CV").status_code == 200
    assert any("harvest_papercategory" in q["sql"] for q in queries.captured_queries)
