"""Asking the library in a real browser, in both languages: the overview's
box, the answer with its citations linked and its TeX rendered by KaTeX,
hostile markup in the answer inert, the papers as cards, saving the answer
to the research record and deleting the question from /me/."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from accounts.models import User
from tests.digests.ask_library import labels_in, needs, store_library
from tests.portal.browser.conftest import browser_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FLAKY = {"1906.00673", "2005.06826", "2101.09077", "2302.09330", "2004.05150"}
TEXTS = {
    "zh-hans": {
        "box": "问 AI",
        "ask": "提问",
        "save": "保存到我的研究记录",
        "saved": "已保存到你的研究记录",
        "delete": "删除",
    },
    "en": {
        "box": "Ask AI",
        "ask": "Ask",
        "save": "Save to my research record",
        "saved": "Saved to your research record",
        "delete": "Delete",
    },
}


def hostile_answer(params: dict) -> dict:
    (first, number), *_ = labels_in(params)
    chinese = any("\u4e00" <= ch <= "\u9fff" for ch in params["messages"][0]["content"][-200:])
    return {
        "synthesis": ("不稳定测试的损失为 $x^2$。" if chinese else "Flaky tests cost $x^2$.")
        + ' <img src=x onerror="window.__xss=1"><script>window.__xss=2</script>',
        "points": [
            {
                "text": f'**Timing** matters [arXiv:{first} v{number}] <a href="javascript:window.__xss=3">x</a>',
                "citations": [{"arxiv_id": first, "version": number}],
            }
        ],
    }


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_researcher_asks_from_the_overview_reads_the_cited_answer_saves_and_deletes_it(
    live_server, fake_llm, settings, tmp_path, language
):
    settings.VAR_DIR = tmp_path
    store_library(FLAKY)
    fake_llm.reading_for = hostile_answer
    user = User.objects.create_user("researcher", password="x", language=language)
    client = Client()
    client.force_login(user)
    base, texts = live_server.url, TEXTS[language]
    question = needs()["n03"]["queries"]["zh" if language == "zh-hans" else "en"]["question"]
    with browser_page(locale="zh-CN" if language == "zh-hans" else "en-US") as (page, watch):
        page.context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": base,
                },
                {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base},
            ]
        )
        page.goto(f"{base}/")
        box = page.locator("[data-ask-box]")
        expect(box.locator("h2")).to_have_text(texts["box"])
        box.locator("textarea[name=question]").fill(question)
        box.get_by_role("button", name=texts["ask"], exact=True).click()
        page.wait_for_url(f"{base}/ask/*/")
        page.wait_for_selector("html[data-tex=rendered]")
        answer = page.locator(".ask-answer")
        expect(answer.locator(".ask-answer__question")).to_have_text(question)
        assert answer.locator(".katex").count() >= 1  # $x^2$ rendered
        assert answer.locator("strong", has_text="Timing").count() == 1
        # Markup in the answer is text, never elements, and nothing ran.
        assert answer.locator("img, script, a[href^=javascript]").count() == 0
        assert "<script>window.__xss=2</script>" in answer.inner_text()
        assert page.evaluate("window.__xss") is None
        (sent,) = fake_llm.message_requests()
        first, number = labels_in(sent)[0]
        assert answer.locator(f'a.citation[href="/papers/{first}/#v{number}"]').count() >= 2  # inline and listed
        assert page.locator(".paper-card").count() == len(FLAKY)
        screenshot(page, f"ask-answer-{language}")
        page.get_by_role("button", name=texts["save"]).click()
        expect(page.locator(".messages")).to_contain_text(texts["saved"])
        page.goto(f"{base}/me/")
        item = page.locator("[data-ask-item]")
        expect(item).to_have_count(1)
        item.get_by_role("button", name=texts["delete"]).click()
        expect(page.locator("[data-ask-item]")).to_have_count(0)
    watch.assert_clean()
