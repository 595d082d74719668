"""Opening a paper from the trail in a real browser: the paper page's own
POST once loaded reads the paper's card, and the navigation's unread count
drops on that page and stays dropped on the trail, in Chinese and English,
and the paper's full text is wanted (reason "opened"). Without JavaScript the
page writes nothing and the card's "mark as read"
button still reads it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.trail.matching import match_versions
from harvest.fulltext.models import FullText
from tests import factories as f
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLE = "Diffusion policies for legged robots"


def full_texts_wanted() -> list[tuple[str, list[str]]]:
    return in_thread(lambda: list(FullText.objects.values_list("version__paper__arxiv_id", "reasons")))


def reader_cookie(language: str) -> str:
    """A reader following cs.RO with three unread cards, signed in by the test client's session."""
    reader = User.objects.create_user("opener", password="x", language=language)
    follow_create(user=reader, kind="category", value={"code": "cs.RO"}, name="Robotics")
    stored = f.store(
        f.record("2611.00201", title=TITLE, categories=["cs.RO"]),
        f.record("2611.00202", title="Robot grasping", categories=["cs.RO"]),
        f.record("2611.00203", title="Swarm planning", categories=["cs.RO"]),
        at=timezone.now() - timedelta(hours=5),
    )
    match_versions(version_ids=stored.created_version_ids)
    client = Client()
    client.force_login(reader)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def sign_in(page, base: str, cookie: str, language: str) -> None:
    page.context.add_cookies(
        [
            {"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base},
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base},
        ]
    )


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_opening_a_paper_from_the_trail_drops_the_unread_count(live_server, language):
    cookie = reader_cookie(language)
    base = live_server.url
    with browser_page() as (page, watch):
        sign_in(page, base, cookie, language)
        page.goto(f"{base}/trail/")
        expect(page.locator(".trail-item[data-unread]")).to_have_count(3)
        assert page.locator("#nav-trail .nav-count").inner_text() == "3"

        page.locator(".trail-item").filter(has_text=TITLE).locator("[data-open]").click()
        page.wait_for_url("**/papers/2611.00201/#v1")
        # The page's GET wrote nothing; its POST once loaded reads the card and
        # swaps in the navigation's link with the count now.
        expect(page.locator("#nav-trail .nav-count")).to_have_text("2")
        assert full_texts_wanted() == [("2611.00201", ["opened"])]
        screenshot(page, f"paper-opened-{language}")

        page.click("#nav-trail")
        page.wait_for_url("**/trail/")
        expect(page.locator(".trail-item[data-unread]")).to_have_count(2)
        expect(page.locator(".trail-item").filter(has_text=TITLE)).not_to_have_attribute("data-unread", "")
        assert page.locator("#nav-trail .nav-count").inner_text() == "2"
    watch.assert_clean()


def test_without_javascript_opening_writes_nothing_and_the_button_still_reads(live_server):
    cookie = reader_cookie("zh-hans")
    base = live_server.url
    with browser_page(javascript=False) as (page, watch):
        sign_in(page, base, cookie, "zh-hans")
        page.goto(f"{base}/trail/")
        card = page.locator(".trail-item").filter(has_text=TITLE)
        card.locator("[data-open]").click()
        page.wait_for_url("**/papers/2611.00201/#v1")
        assert page.locator("#nav-trail .nav-count").inner_text() == "3"
        assert full_texts_wanted() == []

        page.goto(f"{base}/trail/")
        expect(page.locator(".trail-item[data-unread]")).to_have_count(3)
        item_id = card.get_attribute("data-item")
        card.locator("[data-action=read]").click()
        # Without scripts the mark's redirect keeps the reader's place at the card's anchor.
        page.wait_for_url(f"**/trail/#t{item_id}")
        expect(page.locator(".trail-item[data-unread]")).to_have_count(2)
        assert page.locator("#nav-trail .nav-count").inner_text() == "2"
    watch.assert_clean()
