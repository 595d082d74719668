"""The trail's Recommended tab in a real browser, in both languages: a
researcher who saved real statistics papers sees papers of that field with
the saved papers they are close to, says "not interested" to one and saves
another, and neither comes back."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from playwright.sync_api import expect

from accounts.models import User
from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.models import NotInterested
from accounts.records.models import Record
from accounts.records.services import record_save
from tests.accounts.recommend.helpers import store_real_papers, topic
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-hans": {"tab": "推荐", "why": "与你保存的论文相近", "saved": "已保存到你的研究记录"},
    "en": {"tab": "Recommended", "why": "Close to what you saved", "saved": "is saved to your research record"},
}


@pytest.fixture
def researcher() -> tuple[str, list[str]]:
    papers = store_real_papers()
    user = User.objects.create_user("researcher", password="x")
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    saved = topic(papers, "stat.ME")[:5]
    for paper in saved:
        record_save(user=user, paper=paper)
    retrain_and_rescore(user.pk)
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, [paper.title for paper in saved]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_recommended_tab_explains_and_takes_marks(live_server, researcher, language):
    cookie, saved_titles = researcher
    texts = TEXTS[language]
    in_thread(lambda: User.objects.filter(username="researcher").update(language=language))
    with browser_page() as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/")
        page.click("[data-tab=recommended]")
        page.wait_for_url("**/trail/recommended/")
        tab = page.locator("[data-tab=recommended]")
        assert tab.inner_text() == texts["tab"] and tab.get_attribute("aria-current") == "page"
        items = page.locator("[data-recommendation]")
        expect(items).to_have_count(20)
        first = items.first
        assert texts["why"] in first.locator("[data-why]").inner_text()
        neighbours = first.locator("[data-neighbour]").all_inner_texts()
        assert neighbours and set(neighbours) <= set(saved_titles)
        categories = first.locator(".categories li.primary").inner_text()
        assert categories == "stat.ME"
        screenshot(page, f"recommended-{language}")
        refused = first.get_attribute("data-recommendation")
        first.locator("[data-action=not-interested]").click()
        page.wait_for_url("**/trail/recommended/")
        expect(page.locator(f"[data-recommendation='{refused}']")).to_have_count(0)
        second = page.locator("[data-recommendation]").first
        kept = second.get_attribute("data-recommendation")
        second.locator("[data-action=save]").click()
        page.wait_for_url("**/trail/recommended/")
        assert texts["saved"] in page.locator(".messages").inner_text()
        expect(page.locator(f"[data-recommendation='{kept}']")).to_have_count(0)
    watch.assert_clean()
    user = User.objects.get(username="researcher")
    assert NotInterested.objects.filter(user=user).count() == 1
    assert Record.objects.filter(user=user).count() == 6
