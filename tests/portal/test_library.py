"""/papers/: sorts, the time range of the chosen sort, filters, full-text
search, the count line, keyset pages, bad parameters and query counts."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.http import QueryDict
from django.utils import timezone

from harvest.filters import PaperFilterSet
from harvest.models import Paper
from tests import factories as f

pytestmark = pytest.mark.django_db


def ids_on(response) -> list[str]:
    return re.findall(r'<article class="paper-card" data-arxiv-id="([^"]+)"', response.content.decode())


def day(n: int) -> datetime:
    return datetime(2026, 10, n, 12, tzinfo=UTC)


@pytest.fixture
def library():
    """Three papers whose three dates sort them in three different orders."""
    now = timezone.now()
    # (id, v1 date, versions -> latest version date = v1 + 7 d per version, included)
    f.store(
        f.record("2610.00001", first_submitted=day(1), versions=3, categories=["cs.LG", "stat.ML"]),
        at=now - timedelta(days=2),
    )
    f.store(
        f.record(
            "2610.00002",
            first_submitted=day(10),
            versions=1,
            categories=["cs.DS"],
            authors=["Grace Hopper", "Ada Lovelace"],
        ),
        at=now - timedelta(days=9),
    )
    f.store(
        f.record(
            "2610.00003", first_submitted=day(5), versions=1, categories=["cs.CL", "cs.AI"], authors=["Edsger Dijkstra"]
        ),
        at=now - timedelta(hours=1),
    )
    return now


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("updated", ["2610.00001", "2610.00002", "2610.00003"]),  # v3 on Oct 15, Oct 10, Oct 5
        ("included_at", ["2610.00003", "2610.00001", "2610.00002"]),
        ("published", ["2610.00002", "2610.00003", "2610.00001"]),
    ],
)
def test_each_sort_orders_newest_first(client, library, sort, expected):
    assert ids_on(client.get("/papers/", {"sort": sort})) == expected


def test_default_sort_is_version_update_time_and_the_count_line_says_so(client, library):
    f.run(f.source("arxiv"), started_at=datetime(2026, 11, 12, 23, 5, tzinfo=UTC))
    page = client.get("/papers/").content.decode()
    assert "找到 3 篇论文 · 按版本更新时间排序 · 上轮扫描起点 2026-11-13 07:05（北京时间）" in page


def test_count_line_in_english(client, library):
    client.cookies["django_language"] = "en"
    page = client.get("/papers/", {"sort": "published", "ai": "1"}).content.decode()
    assert "Found 2 papers · sorted by first publication · last scan round started" in page


def test_time_range_applies_to_the_chosen_sort(client, library):
    # Oct 8-12 (Beijing): only 2610.00002 has its latest version date there, and
    # only 2610.00002 its first publication; nothing was included then.
    params = {"since": "2026-10-08", "until": "2026-10-12"}
    assert ids_on(client.get("/papers/", {**params, "sort": "updated"})) == ["2610.00002"]
    assert ids_on(client.get("/papers/", {**params, "sort": "published", "since": "2026-10-01"})) == [
        "2610.00002",
        "2610.00003",
        "2610.00001",
    ]
    assert ids_on(client.get("/papers/", {**params, "sort": "included_at"})) == []
    assert ids_on(client.get("/papers/", {"sort": "included_at", "days": "3"})) == ["2610.00003", "2610.00001"]


def test_until_is_the_whole_beijing_day(client, library):
    # 2610.00003 was first published 2026-10-05 12:00 UTC = 20:00 Beijing on Oct 5.
    assert ids_on(client.get("/papers/", {"sort": "published", "since": "2026-10-05", "until": "2026-10-05"})) == [
        "2610.00003"
    ]


def test_several_categories_match_any_of_them(client, library):
    assert ids_on(client.get("/papers/?category=cs.DS&category=stat.ML")) == ["2610.00001", "2610.00002"]
    assert ids_on(client.get("/papers/?category=cs.DS,cs.CL")) == ["2610.00002", "2610.00003"]


def test_an_archive_matches_every_category_inside_it(client, library):
    f.store(f.record("hep-th/9901001", categories=["hep-th", "math.AG"]), at=timezone.now())
    assert ids_on(client.get("/papers/?category=cs")) == ["2610.00001", "2610.00002", "2610.00003"]
    assert ids_on(client.get("/papers/?category=stat")) == ["2610.00001"]
    assert ids_on(client.get("/papers/?category=hep-th")) == ["hep-th/9901001"]  # an old-style archive
    assert ids_on(client.get("/papers/?category=math")) == ["hep-th/9901001"]
    assert ids_on(client.get("/papers/?category=c")) == []  # a prefix of a code is no archive


def test_cross_lists_can_be_left_out(client, library):
    assert ids_on(client.get("/papers/?category=cs.AI")) == ["2610.00003"]  # cross-listed there
    assert ids_on(client.get("/papers/?category=cs.AI&cross_lists=0")) == []
    assert ids_on(client.get("/papers/?category=cs.CL&cross_lists=0")) == ["2610.00003"]
    assert ids_on(client.get("/papers/?category=stat&cross_lists=0")) == []
    assert ids_on(client.get("/papers/?category=cs&cross_lists=0")) == ["2610.00001", "2610.00002", "2610.00003"]
    assert client.get("/papers/?category=cs.AI&cross_lists=maybe").status_code == 400


def test_ai_revisions_and_hf_filters(client, library):
    f.pick(f.paper("2610.00002"), f.source("hf_daily"), upvotes=42, url="https://huggingface.co/papers/2610.00002")
    assert ids_on(client.get("/papers/", {"ai": "1"})) == ["2610.00001", "2610.00003"]
    assert ids_on(client.get("/papers/", {"ai": "0"})) == ["2610.00002"]
    assert ids_on(client.get("/papers/", {"revised": "1"})) == ["2610.00001"]
    assert ids_on(client.get("/papers/", {"hf": "true"})) == ["2610.00002"]
    page = client.get("/papers/", {"hf": "1"}).content.decode()
    assert "HF 社区推荐 ▲42" in page
    assert 'href="https://huggingface.co/papers/2610.00002"' in page


def test_author_filter_goes_through_authorships_case_insensitively(client, library):
    assert ids_on(client.get("/papers/", {"author": "ada lovelace"})) == ["2610.00001", "2610.00002"]
    assert ids_on(client.get("/papers/", {"author": "Edsger  Dijkstra"})) == ["2610.00003"]
    assert ids_on(client.get("/papers/", {"author": "Ada"})) == []


def test_full_text_query_over_titles_and_abstracts(client):
    now = timezone.now()
    f.store(
        f.record("2611.00101", title="Stochastic rounding for BF16 training", abstract="We study numerics."),
        f.record("2611.00102", title="A survey of graph kernels", abstract="Stochastic rounding appears once."),
        f.record("2611.00103", title="Unrelated", abstract="Nothing about it."),
        at=now - timedelta(hours=1),
    )
    found = ids_on(client.get("/papers/", {"q": "stochastic rounding"}))
    assert sorted(found) == ["2611.00101", "2611.00102"]
    if connection.vendor == "postgresql":
        # Ranked: the title match (weight A) before the abstract match (weight B),
        # and English stemming finds "rounds" for "rounding".
        assert found == ["2611.00101", "2611.00102"]
        assert ids_on(client.get("/papers/", {"q": "rounds"})) == ["2611.00101", "2611.00102"]
        assert "按相关度排序" in client.get("/papers/", {"q": "numerics"}).content.decode()


def test_query_combines_with_filters(client, library):
    f.store(f.record("2610.00009", title="Graph attention", categories=["cs.DS"]), at=timezone.now())
    f.store(f.record("2610.00010", title="Graph attention again", categories=["cs.LG"]), at=timezone.now())
    assert ids_on(client.get("/papers/", {"q": "graph attention", "ai": "1", "sort": "included_at"})) == ["2610.00010"]


def test_keyset_pages_cover_every_paper_once_including_papers_without_dates(client):
    now = timezone.now()
    records = [f.record(f"2611.{n:05d}", first_submitted=day(1) + timedelta(hours=n)) for n in range(1, 24)]
    f.store(*records, at=now - timedelta(hours=1))
    undated = f.record("2611.09999")
    undated.versions = []
    f.store(undated, at=now - timedelta(hours=1))
    assert Paper.objects.get(arxiv_id="2611.09999").updated is None
    seen, url, pages = [], "/papers/?size=10", 0
    while url:
        response = client.get(url)
        assert response.status_code == 200
        seen += ids_on(response)
        pages += 1
        match = re.search(r'href="\?([^"]*cursor=[^"]*)" rel="next"', response.content.decode())
        url = "/papers/?" + match.group(1).replace("&amp;", "&") if match else None
    assert pages == 3
    assert len(seen) == len(set(seen)) == 24
    assert seen[0] == "2611.00023" and seen[-1] == "2611.09999"


def test_choices_stay_in_the_page_links(client, library):
    f.store(*[f.record(f"2612.{n:05d}", categories=["cs.LG"]) for n in range(12)], at=timezone.now())
    page = client.get("/papers/", {"category": "cs.LG", "sort": "published", "size": "10"}).content.decode()
    next_link = re.search(r'href="\?([^"]*)" rel="next"', page).group(1).replace("&amp;", "&")
    params = QueryDict(next_link)
    assert (params["category"], params["sort"], params["size"]) == ("cs.LG", "published", "10")
    assert params["cursor"]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("ai=banana", "仅 AI 相关：请用 1（是）或 0（否）。"),
        ("sort=popularity", "排序："),
        ("since=yesterday", "起始日期（北京时间）：请输入有效日期。"),
        ("since=2026-10-09&until=2026-10-01", "结束日期（北京时间）：时间范围的结束早于开始"),
        ("category=%3Cscript%3E", "&lt;script&gt; 不是 arXiv 分类代码"),
        ("days=0", "最近 N 天："),
        ("size=7", "size：每页篇数只能是 10, 20, 50, 100 之一。"),
        ("cursor=not-a-cursor", "cursor：这个翻页链接已损坏"),
        ("q=" + "x" * 201, "搜索："),
        ("revised=2", "有修订："),
        ("until=9999-12-31", "结束日期（北京时间）："),
        ("since=0001-01-01", "起始日期（北京时间）："),
    ],
)
def test_a_bad_parameter_is_a_readable_400_never_a_server_error(client, library, query, message):
    response = client.get("/papers/?" + query)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'class="errors" role="alert"' in page
    assert message in page
    assert "<script>" not in page.split("<main", 1)[1]


def test_a_cursor_of_another_sort_is_refused(client, library):
    f.store(*[f.record(f"2612.{n:05d}") for n in range(12)], at=timezone.now())
    page = client.get("/papers/", {"size": "10"}).content.decode()
    cursor = QueryDict(re.search(r'href="\?([^"]*)" rel="next"', page).group(1).replace("&amp;", "&"))["cursor"]
    response = client.get("/papers/", {"sort": "published", "cursor": cursor})
    assert response.status_code == 400
    assert "属于另一种排序" in response.content.decode()


def test_filterset_is_reusable_outside_the_page():
    f.store(
        f.record("2611.00201", categories=["cs.CV"]), f.record("2611.00202", categories=["math.AG"]), at=timezone.now()
    )
    filterset = PaperFilterSet(QueryDict("ai=true&sort=included_at"))
    assert filterset.is_valid()
    assert filterset.chosen_sort == "included_at"
    assert [p.arxiv_id for p in filterset.qs] == ["2611.00201"]
    bad = PaperFilterSet(QueryDict("category=CS&days=x"))
    assert not bad.is_valid()
    # Each field named as the form labels it.
    assert {message.split("：")[0] for message in bad.error_messages} == {"分类", "最近 N 天"}


@pytest.mark.parametrize("size", [10, 100])
def test_library_runs_a_fixed_number_of_queries_whatever_the_page_size(client, django_assert_max_num_queries, size):
    hf = f.source("hf_daily")
    now = timezone.now()
    f.store(*[f.record(f"2611.{n:05d}", versions=1 + n % 3, categories=["cs.LG"]) for n in range(120)], at=now)
    for n in range(0, 120, 7):
        f.pick(f.paper(f"2611.{n:05d}"), hf)
        f.reading(f.version(f"2611.{n:05d}", 1 + n % 3), written_at=now)
    client.get("/papers/")  # warm the overview cache the count line reads
    # 8: the hybrid search reads the keyword ranking and the filter's vectors before the page.
    with django_assert_max_num_queries(8):
        response = client.get("/papers/", {"size": size, "category": "cs.LG", "q": "paper"})
    assert len(ids_on(response)) == size
