"""The portal in a real browser, in both languages: what a reader sees, no
console errors, no request to another host, TeX rendered, screenshots saved
under test-output/screenshots/."""

from datetime import date, timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone
from playwright.sync_api import expect

from portal.stats.overview import CACHE_KEY
from tests import factories as f
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh": {
        "overview": ["全站更新概况", "统计口径与数据新鲜度", "已收录论文", "浏览论文库", "北京时间"],
        "library": ["找到 1 篇论文 · 按相关度排序", "摘要与 AI 导读", "修订 · v3"],
        "paper": ["共 3 个版本", "v1 → v2 的改动", "arXiv 摘要页", "Hugging Face 社区信号"],
        "sources": ["各信源进度", "arXiv 每夜完整记录", "部分采集异常", "下次检查"],
    },
    "en": {
        "overview": ["Site-wide update overview", "How things are counted", "papers in the library", "Beijing time"],
        "library": ["Found 1 paper · sorted by relevance", "Abstract and AI guided reading", "Revision · v3"],
        "paper": ["3 versions", "What changed from v1 to v2", "arXiv abstract page", "Hugging Face community signals"],
        "sources": ["Progress of each source", "arXiv nightly full record", "Some sources are failing", "Next check"],
    },
}


@pytest.fixture
def library():
    now = timezone.now()
    # arXiv dates each version an hour before the library stores it, so v3 is a
    # revision; a version stored long after its date would be archival (harvest.badges).
    first = now - timedelta(days=20, hours=1)
    gap = timedelta(days=7)
    f.store(
        f.record(
            "2610.04242",
            title="Sparse attention in $O(n \\log n)$ time",
            first_submitted=first,
            abstract="We bound the cost by $\\sum_{i=1}^n x_i^2$ and more.",
            categories=["cs.LG", "cs.CL"],
            authors=["Ada Lovelace", "Alan Turing"],
        ),
        at=first + timedelta(hours=1),
    )
    for versions, title in ((2, "Sparse attention in $O(n \\log n)$ time and space"), (3, None)):
        f.store(
            f.record(
                "2610.04242",
                title=title or "Sparse attention in $O(n \\log n)$ time and space",
                versions=versions,
                first_submitted=first,
                version_gap=gap,
                categories=["cs.LG", "cs.CL"],
                abstract="We bound the cost by $\\sum_{i=1}^n x_i^2$ and much more.",
                authors=["Ada Lovelace", "Grace Hopper"],
            ),
            at=first + gap * (versions - 1) + timedelta(hours=1),
        )
    f.store(f.record("2611.00077", title="Graph kernels", categories=["cs.DS"]), at=now - timedelta(hours=3))
    hf = f.source("hf_daily", name="Hugging Face Daily Papers")
    f.pick(
        f.paper("2610.04242"),
        hf,
        upvotes=12,
        url="https://huggingface.co/papers/2610.04242",
        featured_on=date(2026, 10, 2),
    )
    arxiv = f.source("arxiv", name="arXiv OAI-PMH", checkpoint={"until": "2026-11-12"})
    f.run(arxiv, started_at=now - timedelta(hours=2), status="ok", seen=10, new_papers=1)
    f.run(hf, started_at=now - timedelta(hours=1), status="failed", error="HTTP 503")
    return now


def visible_text(page) -> str:
    return page.locator("body").inner_text()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_reader_pages_in_both_languages(live_server, library, language):
    base = live_server.url
    with browser_page() as (page, watch):
        page.goto(f"{base}/")
        if language == "en":
            page.get_by_role("button", name="English").click()
            page.wait_for_load_state("load")
            assert page.locator("html").get_attribute("lang") == "en"
        else:
            assert page.locator("html").get_attribute("lang") == "zh-Hans"
        text = visible_text(page)
        for expected in TEXTS[language]["overview"]:
            assert expected in text
        assert page.locator("svg.chart rect").count() == 2 * 28
        screenshot(page, f"overview-{language}")

        page.goto(f"{base}/papers/?q=sparse+attention&category=cs.LG&category=cs.DS&ai=1")
        text = visible_text(page)
        for expected in TEXTS[language]["library"]:
            assert expected in text
        # TeX in the title and abstract rendered by KaTeX from our own static files.
        page.wait_for_selector("html[data-tex=rendered]")
        assert page.locator(".paper-card__title .katex").count() == 1
        assert page.locator(".abstract .katex").count() >= 1
        screenshot(page, f"library-{language}")

        page.goto(f"{base}/papers/2610.04242/")
        text = visible_text(page)
        for expected in TEXTS[language]["paper"]:
            assert expected in text
        assert page.locator("li.version").count() == 3
        assert page.locator(".diff ins").count() >= 1
        screenshot(page, f"paper-{language}")

        page.goto(f"{base}/sources/")
        text = visible_text(page)
        for expected in TEXTS[language]["sources"]:
            assert expected in text
        assert "HTTP 503" in text
        screenshot(page, f"sources-{language}")

    assert any("/static/vendor/katex/fonts/" in url for url in watch.requests)
    watch.assert_clean()


def test_phone_layout_keeps_everything_in_the_viewport(live_server, library):
    with browser_page(viewport={"width": 390, "height": 844}) as (page, watch):
        for path, name in (
            ("/", "overview-phone"),
            ("/papers/2610.04242/", "paper-phone"),
            ("/sources/", "sources-phone"),
        ):
            page.goto(f"{live_server.url}{path}")
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, path
            screenshot(page, name)
    watch.assert_clean()


def test_overview_numbers_refresh_every_minute_without_a_reload(live_server, library):
    with browser_page() as (page, watch):
        page.clock.install()
        page.goto(f"{live_server.url}/")
        new_papers = page.locator('[data-stat="new_papers"] strong')
        assert new_papers.inner_text() == "+1"
        page.evaluate("window.__sameDocument = true")

        def arrive():
            # Stored a few seconds before the next poll (the window ends on a whole second).
            f.store(f.record("2611.00088"), f.record("2611.00089"), at=timezone.now() - timedelta(seconds=5))
            cache.delete(CACHE_KEY)  # as if the minute of the cached numbers had passed

        in_thread(arrive)
        page.clock.fast_forward("01:01")
        expect(page.locator('[data-stat="new_papers"] strong')).to_have_text("+3")
        assert page.evaluate("window.__sameDocument") is True
    watch.assert_clean()


def test_library_filters_are_chosen_in_the_form_and_kept_in_the_url(live_server, library):
    with browser_page() as (page, watch):
        page.goto(f"{live_server.url}/papers/")
        page.fill("#f-q", "sparse")
        page.fill("#f-category", "cs.LG cs.DS")
        page.check("input[name=revised]")
        page.select_option("#f-sort", "updated")
        page.click("form.filters button[type=submit]")
        page.wait_for_load_state("load")
        assert "q=sparse" in page.url and "revised=1" in page.url and "sort=updated" in page.url
        assert "author=" not in page.url  # empty fields stay out of the URL
        assert page.locator("article.paper-card").count() == 1
        page.goto(f"{live_server.url}/papers/?ai=maybe")
        assert "仅 AI 相关：请用 1（是）或 0（否）。" in visible_text(page)
    assert [e for e in watch.console_errors if "400" not in e] == []
    assert watch.outside_requests == []
