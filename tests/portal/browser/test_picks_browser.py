"""Picking papers of the day in a real browser, in both languages: from the
trail's cold-start note a researcher with nothing saved opens the picks
page, ticks papers while the page counts them, cannot tick an eleventh,
sends ten and is back on the trail, told what happens next; the picks are
stored, and nothing goes to the console."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.models import Rating
from tests.accounts.conftest import ago, harvest, record
from tests.factories import latest_listing, submitted_for_listing
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-hans": {
        "link": "从当天的论文中挑选最多十篇",
        "none": "本次已选 0 篇（最多 10 篇）",
        "three": "本次已选 3 篇（最多 10 篇）",
        "ten": "本次已选 10 篇（最多 10 篇）",
        "done": "你挑选了 10 篇论文",
    },
    "en": {
        "link": "pick up to ten papers of the day",
        "none": "0 of 10 chosen now",
        "three": "3 of 10 chosen now",
        "ten": "10 of 10 chosen now",
        "done": "You picked 10 papers",
    },
}
TITLES = [
    "Flaky tests in continuous integration",
    "Mutation testing of deep learning systems",
    "Property-based testing for REST APIs",
    "Search-based test generation for games",
    "Metamorphic testing of image classifiers",
    "Regression test selection at scale",
    "Fuzzing network protocol implementations",
    "Test oracles from natural-language specifications",
    "Unit test generation with language models",
    "Test smells and their fixes",
    "Coverage-guided testing of compilers",
    "GUI testing of Android applications",
]


@pytest.fixture
def researcher() -> tuple[str, int]:
    user = User.objects.create_user("picker", password="x")
    follow_create(user=user, kind="category", value={"code": "cs.SE"}, name="Software engineering")
    listed = submitted_for_listing(latest_listing())
    harvest(
        *(
            record(f"2612.{n:05d}", title=title, categories=["cs.SE"], first_submitted=listed)
            for n, title in enumerate(TITLES, 1)
        ),
        at=ago(minutes=40),
    )
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, user.pk


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_ten_papers_are_picked_on_the_page_and_the_trail_says_what_comes(live_server, researcher, language):
    cookie, user_id = researcher
    texts = TEXTS[language]
    in_thread(lambda: User.objects.filter(pk=user_id).update(language=language))
    with browser_page() as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/")
        link = page.locator("[data-ranking-seed] [data-picks-link]")
        expect(link).to_have_text(texts["link"])
        link.click()
        page.wait_for_url("**/trail/picks/")
        boxes = page.locator("input[name=papers]")
        expect(boxes).to_have_count(len(TITLES))
        count, submit = page.locator("[data-picks-count]"), page.locator("[data-picks-submit]")
        expect(count).to_have_text(texts["none"])
        expect(submit).to_be_disabled()
        # A click on the title ticks the paper: the card's head is its label.
        for index in range(3):
            page.locator(".pick-card__choice .paper-card__title").nth(index).click()
        expect(count).to_have_text(texts["three"])
        expect(submit).to_be_enabled()
        for index in range(3, 10):
            boxes.nth(index).check()
        expect(count).to_have_text(texts["ten"])
        # The eleventh cannot be ticked; unticking one frees the others again.
        expect(boxes.nth(10)).to_be_disabled()
        boxes.nth(0).uncheck()
        expect(boxes.nth(10)).to_be_enabled()
        boxes.nth(0).check()
        expect(boxes.nth(11)).to_be_disabled()
        screenshot(page, f"picks-{language}", full_page=False)
        chosen = page.locator("input[name=papers]:checked").evaluate_all("els => els.map(e => e.value)")
        submit.click()
        page.wait_for_url("**/trail/")
        expect(page.locator(".messages")).to_contain_text(texts["done"])
    watch.assert_clean()
    picked = in_thread(
        lambda: set(
            Rating.objects.filter(user_id=user_id, source=Rating.Source.PICK, value=1).values_list(
                "paper__arxiv_id", flat=True
            )
        )
    )
    assert len(chosen) == 10 and picked == set(chosen)
