"""/sources/: each source's health in words (names in the reader's language,
the last successful check, how fresh), the banner rule, guided-reading status
and the completeness of the last announcement days; /sources/operator/ (staff
only): every configured source with its schedules, counts and checkpoint."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone, translation

from accounts.models import User
from digests.models import GuidedReading
from harvest.models import Source
from harvest.search_index import STALLED_AFTER, index_pending_papers
from harvest.selectors import source_progress_list
from harvest.services import paper_upsert_many
from harvest.sources.arxiv_rss import ARXIV_ZONE
from papertrail.schedules import next_runs
from portal.templatetags.portal import bjt, bjtz
from tests import factories as f

# Calendar: the last 24 hours' checks, the next runs and the announcement days are reckoned from now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]


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


@pytest.fixture
def operator(client):
    User.objects.create_user("ops", password="x", is_staff=True)
    client.login(username="ops", password="x")
    return client


def row(page: str, slug: str) -> str:
    return page.split(f'data-source="{slug}"', 1)[1].split("</tr>", 1)[0]


def test_each_source_shows_its_health_in_words(client, sources):
    page = client.get("/sources/").content.decode()
    arxiv = row(page, "arxiv")
    assert "<strong>arXiv 每夜完整记录</strong>" in arxiv and "OAI-PMH" not in arxiv
    assert "正常" in arxiv
    assert "小时前" in arxiv and "无新内容" in arxiv  # the last success was the empty check 3 hours ago
    assert "<code>" not in page and "until" not in page and "cron" not in page  # operators' details
    assert "已停用" in row(page, "arxiv_api")
    with translation.override("zh-hans"):  # the English request's language ends with it
        english = client.get("/sources/", headers={"cookie": "django_language=en"}).content.decode()
    assert "<strong>arXiv nightly full record</strong>" in row(english, "arxiv")
    assert "hours ago" in row(english, "arxiv") and "working" in row(english, "arxiv")


def test_a_source_that_missed_a_scheduled_check_reads_as_behind(client, settings):
    settings.HARVEST_SCHEDULES = {"arxiv": "0 * * * *"}  # hourly
    arxiv = f.source("arxiv", name="arXiv OAI-PMH")
    f.run(arxiv, started_at=timezone.now() - timedelta(hours=5), status="ok", seen=3, new_papers=3)
    f.run(arxiv, started_at=timezone.now() - timedelta(minutes=30), status="failed", error="HTTP 503")
    behind = row(client.get("/sources/").content.decode(), "arxiv")
    assert "滞后" in behind and "最近一次检查失败" in behind
    f.run(arxiv, started_at=timezone.now() - timedelta(minutes=5), status="empty")
    fresh = row(client.get("/sources/").content.decode(), "arxiv")
    assert "及时" in fresh and "滞后" not in fresh


def test_the_operator_view_is_for_staff_only(client, sources):
    assert client.get("/sources/operator/").status_code == 302  # to sign in
    User.objects.create_user("reader", password="x")
    client.login(username="reader", password="x")
    assert client.get("/sources/operator/").status_code == 302
    assert "sources/operator" not in client.get("/sources/").content.decode()


def test_the_operator_view_shows_each_sources_progress(operator, sources, settings):
    client = operator
    assert "/sources/operator/" in client.get("/sources/").content.decode()
    page = client.get("/sources/operator/").content.decode()
    arxiv = row(page, "arxiv")
    assert "已启用" in arxiv
    assert f"<code>{settings.HARVEST_SCHEDULES['arxiv']}</code> (UTC)" in arxiv
    assert "空（无新内容）" in arxiv
    assert "读取 0 条，新增论文 0 篇" in arxiv  # the last check
    assert "检查 2 次（失败 0 次），读取 120 条，新增论文 100 篇，新增版本 7 个" in arxiv  # the last 24 hours
    nxt = next_runs(settings.HARVEST_SCHEDULES["arxiv"], after=timezone.now())[0]
    assert f'<td data-label="下次运行">{bjt(nxt)}</td>' in arxiv  # the zone is named once, above the table
    assert page.count("北京时间") == page.count("时间均为北京时间。") == 2  # that note and the footer's, nowhere else
    assert "时间均为北京时间。" in page.split("<table")[0]
    assert "&quot;until&quot;: &quot;2026-11-12&quot;" in arxiv


def test_a_failed_check_says_what_stopped_it_in_words_and_raises_the_banner(client, sources):
    page = client.get("/sources/").content.decode()
    hf = row(page, "hf_daily")
    assert "失败" in hf and 'data-problem="http"' in hf
    assert "Hugging Face 每日论文 返回错误\uff08HTTP 503\uff09。" in hf and "将于" in hf and "重试" in hf
    assert "huggingface.co" not in hf  # the exception text is for operators
    assert '<div class="banner" role="alert">部分采集异常：Hugging Face 每日论文</div>' in page
    User.objects.create_user("ops", password="x", is_staff=True)
    client.login(username="ops", password="x")
    staff = row(client.get("/sources/operator/").content.decode(), "hf_daily")
    assert "HTTP 503 from huggingface.co &lt;b&gt;down&lt;/b&gt;" in staff


def test_a_network_failure_reads_as_a_sentence_with_its_retry(client, sources):
    arxiv = Source.objects.get(slug="arxiv")
    f.run(
        arxiv,
        started_at=timezone.now(),
        status="failed",
        error="network error: ConnectionError: HTTPSConnectionPool(host='rss.arxiv.org'): NameResolutionError",
    )
    row_html = row(client.get("/sources/").content.decode(), "arxiv")
    assert "无法连接 arXiv 每夜完整记录\uff08网络错误\uff09。" in row_html and "NameResolutionError" not in row_html


def test_a_disabled_source_has_no_next_run(client, operator, sources):
    api = row(client.get("/sources/operator/").content.decode(), "arxiv_api")
    assert "已停用" in api
    assert "从未检查" in api


def test_guided_reading_status_is_included(client, sources, settings):
    settings.ANTHROPIC_API_KEY = ""
    page = client.get("/sources/").content.decode()
    assert "本站未开启 AI 导读。" in page and "ANTHROPIC_API_KEY" not in page  # instructions are for operators
    User.objects.create_user("ops", password="x", is_staff=True)
    client.login(username="ops", password="x")
    assert "未配置：未设置 ANTHROPIC_API_KEY" in client.get("/sources/operator/").content.decode()


def test_the_sources_page_names_each_tasks_provider_and_the_models_of_recent_readings(client, sources, settings):
    settings.ANTHROPIC_API_KEY = "sk-ant-test"
    settings.PAPERTRAIL_LLM_ASK = "openai:deepseek-chat"
    f.store(f.record("2611.00950", versions=2), at=timezone.now() - timedelta(hours=2))
    f.reading(f.version("2611.00950", 1), written_at=timezone.now(), provider="openai", model="deepseek-chat")
    failed = f.reading(f.version("2611.00950", 2), written_at=None, status="failed", provider="openai", model="glm-4")
    GuidedReading.objects.filter(pk=failed.pk).update(error="invalid reply twice from openai:glm-4: not JSON")

    public = client.get("/sources/").content.decode()
    assert "近 24 小时写成导读的服务与模型：openai:deepseek-chat (1)" in public
    User.objects.create_user("ops", password="x", is_staff=True)
    client.login(username="ops", password="x")
    page = client.get("/sources/operator/").content.decode()

    assert 'data-llm-task="readings">anthropic:claude-sonnet-4-6<' in page
    assert 'data-llm-task="ask">openai:deepseek-chat<' in page
    assert "近 24 小时写成的导读：openai:deepseek-chat 1" in page
    assert "两次未给出有效结构化回复（未保存）：openai:glm-4 1" in page


def test_sources_page_query_count_is_fixed(client, sources, django_assert_max_num_queries):
    for n in range(10):
        src = f.source(f"extra{n}")
        f.run(src, started_at=timezone.now() - timedelta(hours=1))
    # 12: the papers that wait for an embedding are counted too, and the
    # readings per provider and model (written, and failed for invalid replies),
    # and the full-text queue (its counts, its latest failures).
    with django_assert_max_num_queries(12):
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
    assert "Celery" not in block  # the instruction is the operators'
    User.objects.create_user("ops", password="x", is_staff=True)
    client.login(username="ops", password="x")
    assert "请检查 Celery worker 和 beat 是否在运行" in search_block(client.get("/sources/operator/").content.decode())
    client.logout()
    index_pending_papers()
    assert 'role="alert"' not in search_block(client.get("/sources/").content.decode())


def test_every_configured_source_is_listed_with_all_its_schedules_before_its_first_run(operator, settings):
    page = operator.get("/sources/operator/").content.decode()
    feed = row(page, "arxiv_rss")
    assert "arXiv 每日公告" in feed and "已启用" in feed and "从未检查" in feed
    polls = settings.ZONED_HARVEST_SCHEDULES["harvest-arxiv_rss"][1]
    for text in polls.expressions:
        assert f"<code>{text}</code> (America/New_York)" in feed
    assert f'<td data-label="下次运行">{bjt(polls.next_run(timezone.now()))}</td>' in feed
    arxiv = row(page, "arxiv")
    evening = settings.ZONED_HARVEST_SCHEDULES["harvest-arxiv-after-announcement"][1]
    assert f"<code>{settings.HARVEST_SCHEDULES['arxiv']}</code> (UTC)" in arxiv
    assert f"<code>{evening.expressions[0]}</code> (America/New_York)" in arxiv
    assert 'data-source="hf_daily"' in page


def test_the_next_run_of_a_source_is_the_earliest_of_its_utc_and_zoned_entries(settings):
    # Monday 30 November 2026 22:00 EST: the UTC entry runs at 04:17 UTC
    # (23:17 EST), the evening entry already at 22:25 EST (03:25 UTC).
    settings.HARVEST_SCHEDULES = {"arxiv": "17 */2 * * *"}
    monday_evening = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
    [arxiv] = [item for item in source_progress_list(now=monday_evening) if item.source.slug == "arxiv"]
    assert arxiv.next_run == datetime(2026, 12, 1, 3, 25, tzinfo=UTC)
    # Friday evening there is no announcement: the UTC entry comes first.
    friday_evening = datetime(2026, 12, 5, 3, 0, tzinfo=UTC)
    [arxiv] = [item for item in source_progress_list(now=friday_evening) if item.source.slug == "arxiv"]
    assert arxiv.next_run == datetime(2026, 12, 5, 4, 17, tzinfo=UTC)


def completeness_block(page: str) -> str:
    return page.split('data-block="completeness"', 1)[1].split("</section>", 1)[0]


def test_each_announcement_day_says_how_many_papers_were_listed_held_missing_and_behind(client):
    today = timezone.now().astimezone(ARXIV_ZONE).date()
    f.store(f.record("2611.00001"), f.record("2611.00002"), f.record("2611.00003", versions=2), at=timezone.now())
    f.announcement(today, [("2611.00001", 1), ("2611.00002", 3), ("2611.00003", 2), ("2611.00404", 1)])
    f.announcement(today - timedelta(days=13), [("2611.00001", 1)])
    f.announcement(today - timedelta(days=14), [("2611.00999", 1)])  # beyond the 14 days

    block = completeness_block(client.get("/sources/").content.decode())

    latest = block.split(f'data-day="{today:%Y-%m-%d}"', 1)[1].split("</tr>", 1)[0]
    assert "不完整" in latest
    assert re.findall(r'data-label="(?:列出|已收录)">(\d+)</td>', latest) == ["4", "2"]
    assert '<a href="https://arxiv.org/abs/2611.00404" rel="noopener">2611.00404</a>' in latest
    assert '<a href="https://arxiv.org/abs/2611.00002v3" rel="noopener">2611.00002</a>（已收录 v1，列出 v3）' in latest
    oldest = block.split(f'data-day="{today - timedelta(days=13):%Y-%m-%d}"', 1)[1].split("</tr>", 1)[0]
    assert "完整" in oldest and "不完整" not in oldest
    assert "2611.00999" not in block and block.count("data-day=") == 2


def test_without_a_recorded_announcement_the_table_says_so(client):
    block = completeness_block(client.get("/sources/").content.decode())
    assert "最近这些天尚未记录任何公告。" in block


def test_the_sources_note_names_the_readers_own_zone(client, sources, reader):
    reader.time_zone = "Europe/Paris"
    reader.save(update_fields=["time_zone"])
    client.force_login(reader)
    note = client.get("/sources/").content.decode().split("<table")[0]
    assert "Europe/Paris" in note and "北京时间" not in note
