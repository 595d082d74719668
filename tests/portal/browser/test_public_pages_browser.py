"""Public pages for the public, in a real browser and both languages: under
DEBUG (as `make run` runs) a missing paper or address shows the site's own
404 page, never Django's list of URL patterns; the sources page tells each
source's health in words, its operators' details on a staff-only view; a
visitor's ask box says only that asking is off; a bad date is named as the
form labels it; the overview's tagline speaks the page's language and its
chart labels read on a phone; a query follow's reason has one pair of
quotes; the private feeds are links with a copy button."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

from accounts.follows.services import follow_create
from accounts.models import User
from harvest.models import HarvestRun
from tests import factories as f
from tests.accounts.conftest import harvest, record
from tests.portal.browser.conftest import browser_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ["zh-hans", "en"]
TEXTS = {
    "zh-hans": {
        "not_found": "未找到",
        "arxiv": "arXiv 每夜完整记录",
        "hf": "Hugging Face 每日论文",
        "ask_off": "AI 问答未开启",
        "bad_date": "起始日期（北京时间）：请输入有效日期。",
        "tagline": "你的研究，尽在眼前",
        "copy": "复制",
        "copied": "已复制",
    },
    "en": {
        "not_found": "Not found",
        "arxiv": "arXiv nightly full record",
        "hf": "Hugging Face Daily Papers",
        "ask_off": "AI Q&A is not switched on.",
        "bad_date": "From (Beijing date): Enter a valid date.",
        "tagline": "YOUR RESEARCH, IN SIGHT",
        "copy": "Copy",
        "copied": "Copied",
    },
}


def session_of(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[django_settings.SESSION_COOKIE_NAME].value


def speaking(page, base: str, language: str, session: str | None = None) -> None:
    cookies = [{"name": django_settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base}]
    if session:
        cookies.append({"name": django_settings.SESSION_COOKIE_NAME, "value": session, "url": base})
    page.context.add_cookies(cookies)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_missing_paper_under_debug_is_the_sites_own_404(live_server, settings, language):
    settings.DEBUG = True
    base = live_server.url
    with browser_page() as (page, _watch):
        speaking(page, base, language)
        for path in ("/papers/2611.99999/", "/no-such-page/"):
            response = page.goto(f"{base}{path}")
            assert response.status == 404, path
            assert page.locator("main h1").inner_text() == TEXTS[language]["not_found"], path
            text = page.locator("body").inner_text()
            assert "URLconf" not in text and "Django" not in text, path
            assert page.locator("nav a[href='/papers/']").count() >= 1  # the site's navigation


@pytest.fixture
def checked_sources():
    now = timezone.now()
    arxiv = f.source("arxiv", "arXiv OAI-PMH", checkpoint={"until": "2026-11-12"})
    f.run(arxiv, started_at=now - timedelta(minutes=50), seen=20, new_papers=20)
    hf = f.source("hf_daily", "Hugging Face Daily Papers")
    f.run(hf, started_at=now - timedelta(minutes=10), status=HarvestRun.Status.FAILED, error="HTTP 503 from hf")
    return session_of(User.objects.create_user("ops", password="x", is_staff=True))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("width", [1280, 390])
def test_sources_speak_in_words_and_keep_operators_details_for_staff(
    live_server, settings, checked_sources, language, width
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"  # no mail server: a warning
    texts, base = TEXTS[language], live_server.url
    with browser_page(viewport={"width": width, "height": 900}) as (page, watch):
        speaking(page, base, language)
        page.goto(f"{base}/sources/")
        arxiv = page.locator("[data-source=arxiv]")
        assert texts["arxiv"] in arxiv.inner_text() and "OAI-PMH" not in arxiv.inner_text()
        assert texts["hf"] in page.locator("[role=alert]").first.inner_text()
        main = page.locator("main")
        assert main.locator("code, pre, #no-mail, [data-operator-link]").count() == 0
        assert "{" not in main.inner_text() and "cron" not in main.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
        page.goto(f"{base}/sources/operator/")
        assert "/accounts/login/" in page.url  # sign in first
        speaking(page, base, language, checked_sources)
        page.goto(f"{base}/sources/")
        page.locator("[data-operator-link]").click()
        page.wait_for_url("**/sources/operator/")
        assert page.locator("#no-mail").is_visible()
        assert "2026-11-12" in page.locator("[data-source=arxiv] pre.checkpoint").inner_text()
    watch.assert_clean()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_visitor_is_told_only_that_asking_is_off(live_server, settings, language):
    settings.ANTHROPIC_API_KEY = ""
    base = live_server.url
    with browser_page() as (page, watch):
        speaking(page, base, language)
        page.goto(f"{base}/")
        assert page.locator("[data-ask-missing]").inner_text() == TEXTS[language]["ask_off"]
        assert "ANTHROPIC" not in page.locator("main").inner_text()
    watch.assert_clean()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_date_is_named_as_the_form_labels_it(live_server, language):
    base = live_server.url
    with browser_page() as (page, _watch):
        speaking(page, base, language)
        response = page.goto(f"{base}/papers/?since=yesterday")
        assert response.status == 400
        assert TEXTS[language]["bad_date"] in page.locator(".errors").inner_text()
        assert "since:" not in page.locator(".errors").inner_text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_overview_tagline_is_translated_and_its_chart_reads_on_a_phone(live_server, language):
    now = timezone.now()
    # The overview counts up to now in whole seconds: a paper stored within the
    # current second would wait for the next refresh, so none is stored in it.
    f.store(f.record("2611.00001"), at=now - timedelta(seconds=2))
    f.store(f.record("2611.00002"), f.record("2611.00003"), at=now - timedelta(days=3))
    base = live_server.url
    with browser_page(viewport={"width": 390, "height": 844}) as (page, watch):
        speaking(page, base, language)
        page.goto(f"{base}/")
        assert page.locator(".tagline").inner_text() == TEXTS[language]["tagline"]
        sizes = page.locator("svg.chart text").evaluate_all(
            "texts => texts.map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)"
        )
        assert sizes and min(sizes) >= 10, sizes
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    watch.assert_clean()


@pytest.fixture
def query_reader() -> str:
    reader = User.objects.create_user("reader", password="x")
    follow_create(user=reader, kind="query", value={"q": '"large language model" testing'}, name="LLM testing")
    harvest(
        record("2612.00001", title="Testing with a large language model", categories=["cs.SE"]),
        at=timezone.now() - timedelta(minutes=30),
    )
    return session_of(reader)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_query_follows_reason_has_one_pair_of_quotes_and_feeds_are_links(live_server, query_reader, language):
    base, texts = live_server.url, TEXTS[language]
    User.objects.filter(username="reader").update(language=language)  # a reader's pages speak their language
    with browser_page() as (page, watch):
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
        speaking(page, base, language, query_reader)
        page.goto(f"{base}/trail/")
        reason = page.locator(".trail-why li[data-follow]").first.inner_text()
        assert '"large language model" testing' in reason
        assert '“"' not in reason and '"”' not in reason
        page.goto(f"{base}/me/")
        feed = page.locator("#feed-urls a[data-feed-url]").first
        url = feed.get_attribute("href")
        assert url.startswith("http") and url.endswith(".atom") and feed.inner_text() == url
        copy = page.locator("#feed-urls button[data-copy]").first
        assert copy.inner_text() == texts["copy"]
        copy.click()
        page.wait_for_selector("#feed-urls button[data-done]")
        assert copy.inner_text() == texts["copied"]
        assert page.evaluate("navigator.clipboard.readText()") == url
    watch.assert_clean()
