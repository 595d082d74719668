"""/sources/: per-source progress and health, the banner rule, guided-reading status."""

from datetime import timedelta

import pytest
from django.utils import timezone

from harvest.search_index import STALLED_AFTER, index_pending_papers
from harvest.services import paper_upsert_many
from papertrail.schedules import next_runs
from portal.templatetags.portal import bjtz
from tests import factories as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def sources():
    now = timezone.now()
    arxiv = f.source("arxiv", name="arXiv OAI-PMH", checkpoint={"until": "2026-11-12", "set": "cs"})
    hf = f.source("hf_daily", name="Hugging Face Daily Papers")
    f.source("arxiv_api", name="arXiv API", enabled=False)
    f.run(arxiv, started_at=now - timedelta(hours=30), status="ok", seen=500, new_papers=400, new_versions=20)
    f.run(
        arxiv,
        started_at=now - timedelta(hours=5),
        status="ok",
        seen=120,
        new_papers=100,
        new_versions=7,
        unchanged=13,
        pages=2,
    )
    f.run(arxiv, started_at=now - timedelta(hours=3), status="empty", seen=0)
    f.run(hf, started_at=now - timedelta(hours=2), status="ok", seen=30, new_papers=2)
    f.run(hf, started_at=now - timedelta(hours=1), status="failed", error="HTTP 503 from huggingface.co <b>down</b>")
    return now


def row(page: str, slug: str) -> str:
    return page.split(f'data-source="{slug}"', 1)[1].split("</tr>", 1)[0]


def test_each_source_shows_its_progress(client, sources, settings):
    page = client.get("/sources/").content.decode()
    arxiv = row(page, "arxiv")
    assert "已启用" in arxiv
    assert f"<code>{settings.HARVEST_SCHEDULES['arxiv']}</code> (UTC)" in arxiv
    assert "空(无新内容)" in arxiv
    assert "读取 0 条,新增论文 0 篇" in arxiv  # the last check
    assert "检查 2 次(失败 0 次),读取 120 条,新增论文 100 篇,新增版本 7 个" in arxiv  # the last 24 hours
    nxt = next_runs(settings.HARVEST_SCHEDULES["arxiv"], after=timezone.now())[0]
    from portal.templatetags.portal import bjt

    assert f"{bjt(nxt)}(北京时间)" in arxiv
    assert "&quot;until&quot;: &quot;2026-11-12&quot;" in arxiv


def test_a_failed_check_shows_its_error_escaped_and_raises_the_banner(client, sources):
    page = client.get("/sources/").content.decode()
    hf = row(page, "hf_daily")
    assert "失败" in hf
    assert "HTTP 503 from huggingface.co &lt;b&gt;down&lt;/b&gt;" in hf
    assert '<div class="banner" role="alert">部分采集异常: Hugging Face Daily Papers</div>' in page


def test_a_disabled_source_has_no_next_run(client, sources):
    api = row(client.get("/sources/").content.decode(), "arxiv_api")
    assert "已停用" in api
    assert "从未检查" in api


def test_guided_reading_status_is_included(client, sources, settings):
    settings.ANTHROPIC_API_KEY = ""
    page = client.get("/sources/").content.decode()
    assert "未配置:未设置 ANTHROPIC_API_KEY" in page


def test_sources_page_query_count_is_fixed(client, sources, django_assert_max_num_queries):
    for n in range(10):
        src = f.source(f"extra{n}")
        f.run(src, started_at=timezone.now() - timedelta(hours=1))
    with django_assert_max_num_queries(8):
        response = client.get("/sources/")
    assert response.status_code == 200


def search_block(page: str) -> str:
    return page.split('data-block="search-index"', 1)[1].split("</section>", 1)[0]


def test_the_full_text_index_is_up_to_date_or_says_how_many_papers_wait(client, sources):
    f.store(f.record("2611.00901"), at=timezone.now())  # stored and indexed, as after a harvest's pass
    assert "所有已收录的论文均可被全文检索。" in search_block(client.get("/sources/").content.decode())

    stored = timezone.now() - timedelta(minutes=2)
    paper_upsert_many(records=[f.record("2611.00902"), f.record("2611.00903")], now=stored)
    block = search_block(client.get("/sources/").content.decode())

    assert "2 篇已收录的论文等待加入全文索引" in block
    assert bjtz(stored) in block
    assert 'role="alert"' not in block  # a pass is due within minutes


def test_papers_waiting_longer_than_three_missed_passes_raise_an_alert(client, sources):
    stored = timezone.now() - STALLED_AFTER - timedelta(minutes=1)
    paper_upsert_many(records=[f.record("2611.00911")], now=stored)

    block = search_block(client.get("/sources/").content.decode())

    assert '<div class="banner" role="alert">全文索引滞后' in block
    assert "请检查 Celery worker 和 beat 是否在运行" in block
    index_pending_papers()
    assert 'role="alert"' not in search_block(client.get("/sources/").content.decode())
