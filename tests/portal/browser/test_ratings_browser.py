"""Thumbs up / down in a real browser, in both languages: on the trail a
researcher presses "more like this" on a card (the page comes back at the
card with the thumb pressed), presses it again to undo, then "less like
this" on the library's card, with no console error."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.models import Rating
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest, record
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-hans": {"up": "多推荐这类", "down": "少推荐这类", "undo": "你已选择“多推荐这类”：再按一次即可撤销"},
    "en": {
        "up": "More like this",
        "down": "Less like this",
        "undo": "You asked for more like this: press again to undo",
    },
}


@pytest.fixture
def researcher() -> tuple[str, int]:
    user = User.objects.create_user("researcher", password="x")
    follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="ML")
    papers = [record("2611.00201", title="Sparse attention"), record("2611.00202", title="Graph kernels")]
    harvest(*papers, at=ago(hours=3))
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, Paper.objects.get(arxiv_id="2611.00201").pk


def _rating(paper_id: int) -> int | None:
    return in_thread(lambda: Rating.objects.filter(paper_id=paper_id).values_list("value", flat=True).first())


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_card_is_rated_up_then_undone_then_rated_down(live_server, researcher, language):
    cookie, paper_id = researcher
    texts = TEXTS[language]
    in_thread(lambda: User.objects.filter(username="researcher").update(language=language))
    with browser_page() as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/")
        controls = page.locator(f"#rating-{paper_id}")
        up, down = controls.locator("[data-rate=up]"), controls.locator("[data-rate=down]")
        expect(up).to_contain_text(texts["up"])
        expect(down).to_contain_text(texts["down"])
        expect(up).to_have_attribute("aria-pressed", "false")
        up.click()
        page.wait_for_url(f"**/trail/#rating-{paper_id}")
        expect(up).to_have_attribute("aria-pressed", "true")
        expect(up).to_have_attribute("title", texts["undo"])
        expect(down).to_have_attribute("aria-pressed", "false")
        assert _rating(paper_id) == Rating.Value.UP
        screenshot(page, f"rating-up-{language}", full_page=False)
        # Pressing the pressed thumb undoes the rating.
        up.click()
        page.wait_for_url(f"**/trail/#rating-{paper_id}")
        expect(up).to_have_attribute("aria-pressed", "false")
        assert _rating(paper_id) is None
        # The library's card has the same thumbs.
        page.goto(f"{live_server.url}/papers/")
        page.locator(f"#rating-{paper_id} [data-rate=down]").click()
        page.wait_for_url(f"**/papers/#rating-{paper_id}")
        expect(page.locator(f"#rating-{paper_id} [data-rate=down]")).to_have_attribute("aria-pressed", "true")
        assert _rating(paper_id) == Rating.Value.DOWN
    watch.assert_clean()
