"""/ overview: the reference wording, both languages, the banner, the polled
fragment, the chart, escaping, a bounded number of queries, and arXiv's
announcements (the last, the next, a window without one)."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.template.loader import render_to_string
from django.utils import timezone, translation

from portal.stats import overview_stats
from portal.stats.chart import DayPoint
from portal.templatetags.portal import bjt, day_chart
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
        "（北京时间）",
        "最近完成检查",
        "最近发现新增版本",
        "库内论文最新更新时间",
        "每分钟刷新已保存的数据。",
        "空检查不代表采集异常；",
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
    hf = f.source("hf_daily", name="Hugging Face Daily Papers")
    f.run(hf, started_at=timezone.now() - timedelta(minutes=5), status="failed", error="timeout")
    page = client.get("/").content.decode()
    # The source named as the sources page names it, in the page's language.
    assert '<a class="banner" role="alert" href="/sources/">部分采集异常 — Hugging Face 每日论文 ·' in page


def test_numbers_fragment_is_polled_every_minute(client, site):
    page = client.get("/").content.decode()
    assert 'hx-get="/overview/numbers/" hx-trigger="every 60s" hx-swap="outerHTML"' in page
    fragment = client.get("/overview/numbers/").content.decode()
    assert fragment.startswith('<div id="overview-numbers"')
    assert 'data-stat="new_papers"><strong>+1</strong>' in fragment
    assert 'data-stat="revisions"><strong>+1</strong>' in fragment
    assert "<html" not in fragment


@pytest.mark.calendar  # the chart's last bar is today in Beijing
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


def numbers_at(now) -> str:
    with translation.override("zh-hans"):
        return render_to_string("portal/_overview_numbers.html", {"stats": overview_stats(now=now)})


def test_the_freshness_block_says_when_arxiv_announced_last_and_next(db):
    f.announcement(date(2026, 11, 12), [("2611.00001", 1)])
    # Thursday 12 November 19:31 US Eastern: the next announcement is at 20:00 EST, 09:00 in Beijing.
    html = numbers_at(f.NOW)
    assert '<dd data-fresh="last_announcement">2026-11-12</dd>' in html
    assert '<dd data-fresh="next_announcement">2026-11-13 09:00</dd>' in html and "时间均为北京时间。" in html
    assert "data-no-announcement" not in html


def test_a_window_without_an_announcement_is_not_read_as_a_failure(db):
    saturday = datetime(2026, 11, 14, 2, 0, tzinfo=UTC)  # Saturday 10:00 Beijing
    html = numbers_at(saturday)
    assert 'data-stat="new_papers"><strong>+0</strong>' in html
    assert "此统计窗口内没有 arXiv 公告" in html and "并非采集异常" in html
    assert '<dd data-fresh="last_announcement">—</dd>' in html
    # Sunday 20:00 EST is Monday 09:00 in Beijing.
    assert '<dd data-fresh="next_announcement">2026-11-16 09:00</dd>' in html


def test_the_latest_arxiv_scan_counts_the_announcement_feed(client, site):
    feed = f.source("arxiv_rss", name="arXiv announcements")
    checked = timezone.now() - timedelta(minutes=3)
    f.run(feed, started_at=checked - timedelta(seconds=20), finished_at=checked, status="empty")
    page = client.get("/").content.decode()
    assert f'<span data-fresh="last_arxiv_scan">{bjt(checked)}</span>' in page


def test_new_papers_in_a_window_without_an_announcement_are_said_to_come_from_the_record(db):
    saturday = datetime(2026, 11, 14, 2, 0, tzinfo=UTC)  # Saturday 10:00 Beijing
    f.store(f.record("2611.00301"), f.record("2611.00302"), at=saturday - timedelta(hours=1))
    html = numbers_at(saturday)
    assert 'data-stat="new_papers"><strong>+2</strong>' in html
    assert "来自 arXiv 完整记录或回填" in html and "并非采集异常" not in html  # never "few is normal" beside many


def test_without_a_finished_scan_the_overview_says_so_in_words(db):
    html = numbers_at(f.NOW)
    assert '<span data-fresh="last_arxiv_scan">尚未完成任何扫描</span>' in html


def test_a_chart_of_one_day_is_said_in_words(db):
    one_day = [DayPoint(date(2026, 11, 1) + timedelta(days=n), 344 if n == 29 else 0, 0) for n in range(30)]
    with translation.override("zh-hans"):
        words = str(day_chart(one_day))
        drawn = str(day_chart([*one_day[:-2], DayPoint(date(2026, 11, 29), 5, 1), one_day[-1]]))
    assert "<svg" not in words and "data-chart-words" in words and "2026-11-30" in words and "344" in words
    assert drawn.startswith("<svg")
