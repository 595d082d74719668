"""/ overview: the reference wording, both languages, the banner, the polled
fragment, the chart, escaping and a bounded number of queries."""

from datetime import timedelta

import pytest
from django.utils import timezone

from tests import factories as f
from tests.portal.test_library import ids_on

pytestmark = pytest.mark.django_db


@pytest.fixture
def site():
    now = timezone.now()
    f.store(
        f.record("2611.13545", title="Closing the BF16-FP16 Convergence Speed Gap", categories=["cs.LG", "stat.ML"]),
        at=now - timedelta(hours=1),
    )
    f.store(f.record("2611.00002", categories=["cs.DS"], versions=1), at=now - timedelta(days=4))
    f.store(f.record("2611.00002", categories=["cs.DS"], versions=2), at=now - timedelta(hours=2))
    arxiv = f.source("arxiv", name="arXiv OAI-PMH")
    f.run(arxiv, started_at=now - timedelta(hours=1, minutes=5), status="ok")
    return now


def test_overview_in_chinese_by_default(client, site):
    response = client.get("/")
    page = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="zh-Hans">' in page
    for text in (
        "全站更新概况",
        "新增论文",
        "其中 AI 相关",
        "已有论文修订",
        "新增 AI 导读",
        "arXiv 最近完成扫描",
        "全站最近入库",
        "各信源进度 →",
        "统计口径与数据新鲜度",
        "(北京时间)",
        "最近完成检查",
        "最近发现新增版本",
        "库内论文最新更新时间",
        "每分钟刷新已保存的数据。",
        "空检查不代表采集异常;",
        "新收录可能包含历史论文。",
        "AI 导读按新增版本计数。",
        "已收录论文",
        "有修订",
        "HF 社区发现",
        "浏览论文库",
        "找到 2 篇论文 · 按版本更新时间排序 · 上轮扫描起点",
        "原文摘要",
        "新论文 · v1",
        "修订 · v2",
    ):
        assert text in page, text
    assert "部分采集异常" not in page
    assert ids_on(response) == ["2611.00002", "2611.13545"] or set(ids_on(response)) == {"2611.00002", "2611.13545"}


def test_overview_in_english_after_switching_language(client, site):
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    page = client.get("/").content.decode()
    assert '<html lang="en">' in page
    for text in (
        "Site-wide update overview",
        "new papers",
        "of which AI-related",
        "Last completed arXiv scan",
        "(Beijing time)",
        "papers in the library",
        "Found 2 papers · sorted by version update time",
    ):
        assert text in page, text
    assert "全站更新概况" not in page


def test_banner_while_an_enabled_source_latest_check_failed(client, site):
    hf = f.source("hf_daily", name="Hugging Face")
    f.run(hf, started_at=timezone.now() - timedelta(minutes=5), status="failed", error="timeout")
    page = client.get("/").content.decode()
    assert '<a class="banner" role="alert" href="/sources/">部分采集异常 — Hugging Face' in page


def test_numbers_fragment_is_polled_every_minute(client, site):
    page = client.get("/").content.decode()
    assert 'hx-get="/overview/numbers/" hx-trigger="every 60s" hx-swap="outerHTML"' in page
    fragment = client.get("/overview/numbers/").content.decode()
    assert fragment.startswith('<div id="overview-numbers"')
    assert 'data-stat="new_papers"><strong>+1</strong>' in fragment
    assert 'data-stat="revisions"><strong>+1</strong>' in fragment
    assert "<html" not in fragment


def test_chart_is_inline_svg_with_exact_numbers_in_titles(client, site):
    page = client.get("/").content.decode()
    assert '<svg class="chart"' in page
    today = timezone.now().astimezone(__import__("zoneinfo").ZoneInfo("Asia/Shanghai")).date()
    # Both stored at most two hours ago: on today's or yesterday's bar.
    assert f"{today:%Y-%m-%d} · 新增论文" in page


def test_harvested_text_is_escaped(client):
    f.store(
        f.record(
            "2611.06666",
            title="<script>window.pwned=1</script>",
            abstract='<img src=x onerror="alert(1)">',
            authors=['"><svg onload=alert(1)>'],
        ),
        at=timezone.now(),
    )
    page = client.get("/").content.decode()
    assert "<script>window.pwned" not in page
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in page
    assert "<img src=x" not in page
    assert "<svg onload" not in page


def test_overview_is_served_from_the_cache_with_few_queries(client, site, django_assert_max_num_queries):
    f.store(*[f.record(f"2611.{n:05d}") for n in range(100, 200)], at=timezone.now())
    client.get("/")  # computes and caches the numbers
    with django_assert_max_num_queries(4):
        client.get("/")
    with django_assert_max_num_queries(0):
        client.get("/overview/numbers/")


def test_overview_first_request_is_bounded_too(client, site, django_assert_max_num_queries):
    with django_assert_max_num_queries(16):
        client.get("/")
