"""Flows that respect the reader, in a real browser, in both languages, at
1280 and 390 px: far down a trail of 30 cards, "mark as read" and "up to
here" leave the reader where they were (the cards swap in place, the
unread count with them) and "mark all" reads the rest; "not interested"
leaves its undo where the card was; the order in use
looks pressed; an empty trail leads to a new follow, the author form waits
for a name, and a topic's threshold is said in words."""

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
from tests import factories as f
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CARDS = 30
VIEWPORTS = {"wide": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
TEXTS = {
    "zh-hans": {"marked": "已将 {n} 项标为已读。", "follows": "关注", "hint": "输入作者姓名后点", "broad": "较宽"},
    "en": {"marked": "{n} marked as read.", "follows": "Follows", "hint": "Type the author's name", "broad": "broad"},
}


def _signed_in(username: str, language: str) -> tuple[str, User]:
    user = User.objects.create_user(username, password="x", language=language)
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, user


@pytest.fixture
def long_trail() -> None:
    """Thirty papers of the one followed category, an hour apart: thirty unread cards."""
    now = timezone.now()
    for n in range(CARDS):
        stored = f.store(
            f.record(f"2611.{n:05d}", title=f"Paper number {n} on learning", categories=["cs.LG"]),
            at=now - timedelta(hours=CARDS - n),
        )
        match_versions(version_ids=stored.created_version_ids)


def _top(card) -> float:
    """Where the card is in the window (px from its top): the reader's place."""
    return card.evaluate("el => el.getBoundingClientRect().top")


def _unread(page) -> int:
    count = page.locator("#nav-trail .nav-count")
    return int(count.inner_text()) if count.count() else 0


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_marks_keep_the_readers_place_and_the_order_in_use_looks_pressed(live_server, long_trail, language, viewport):
    def prepare() -> str:
        cookie, user = _signed_in("reader", language)
        follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="Learning")
        return cookie

    cookie = in_thread(prepare)
    texts = TEXTS[language]
    with browser_page(viewport=VIEWPORTS[viewport]) as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/")
        # The order in use is pressed and looks it: filled, unlike the other.
        pressed, other = page.locator("[data-order=for_you]"), page.locator("[data-order=newest]")
        assert pressed.get_attribute("aria-pressed") == "true" and other.get_attribute("aria-pressed") == "false"
        colours = [button.evaluate("b => getComputedStyle(b).backgroundColor") for button in (pressed, other)]
        assert colours[0] != colours[1]
        cards = page.locator(".trail-item")
        expect(cards).to_have_count(20)
        assert _unread(page) == CARDS

        # Far down the page, one card read: the page stays where it was.
        target = cards.nth(12)
        target.scroll_into_view_if_needed()
        assert page.evaluate("window.scrollY") > 1000
        before = _top(target)
        target.locator("[data-action=read]").click()
        expect(page.locator(".trail-item").nth(12)).not_to_have_attribute("data-unread", "")
        expect(page.locator("#nav-trail .nav-count")).to_have_text(str(CARDS - 1))
        assert abs(_top(page.locator(".trail-item").nth(12)) - before) <= 2
        assert page.evaluate("window.scrollY") > 1000 and page.url == f"{live_server.url}/trail/"
        # The keyboard carries on from the card (its button went with the old card).
        focused = page.evaluate("document.activeElement.closest('[data-item]')?.id")
        assert focused == page.locator(".trail-item").nth(12).get_attribute("id")
        screenshot(page, f"trail-marked-{language}-{viewport}", full_page=False)

        # "Up to here" on the 16th card: it and the four after it on the page are read, in place.
        target = page.locator(".trail-item").nth(15)
        target.scroll_into_view_if_needed()
        before = _top(target)
        target.locator("[data-action=read-up-to]").click()
        expect(page.locator("#trail-messages")).to_contain_text(texts["marked"].format(n=CARDS - 15))
        expect(page.locator(".trail-item[data-unread]")).to_have_count(14)
        assert abs(_top(page.locator(".trail-item").nth(15)) - before) <= 2
        assert _unread(page) == 14

        # "Mark all" above the cards reads the rest.
        page.locator("[data-action=read-all]").click()
        expect(page.locator("#trail-messages")).to_contain_text(texts["marked"].format(n=14))
        expect(page.locator(".trail-item[data-unread]")).to_have_count(0)
        expect(page.locator("#nav-trail .nav-count")).to_have_count(0)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
    watch.assert_clean()


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_not_interested_keeps_the_readers_place_with_its_undo_where_the_card_was(
    live_server, long_trail, language, viewport
):
    def prepare() -> str:
        cookie, user = _signed_in("reader", language)
        follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="Learning")
        return cookie

    cookie = in_thread(prepare)
    with browser_page(viewport=VIEWPORTS[viewport]) as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/?order=newest")
        cards = page.locator(".trail-item")
        expect(cards).to_have_count(20)
        target, after = cards.nth(12), cards.nth(13)
        title, following = target.locator(".paper-card__title").inner_text(), after.get_attribute("id")
        dismissed = target.get_attribute("id")
        target.scroll_into_view_if_needed()
        assert page.evaluate("window.scrollY") > 1000
        before = _top(target)
        target.locator("[data-action=dismiss]").click()
        # The card is gone; its undo stands where it was, just before the card that followed it.
        undo = page.locator("#undo")
        expect(undo).to_contain_text(title)
        expect(page.locator(f"#{dismissed}")).to_have_count(0)
        assert page.evaluate("document.getElementById('undo').nextElementSibling.id") == following
        assert abs(_top(undo) - before) <= 2 and page.evaluate("window.scrollY") > 1000
        assert page.evaluate("document.activeElement.dataset.action") == "undo"
        screenshot(page, f"trail-dismissed-{language}-{viewport}", full_page=False)
        # Undo brings the card back where the banner was, the page still far down.
        undo.locator("[data-action=undo]").click()
        expect(page.locator("#undo")).to_have_count(0)
        expect(page.locator(".trail-item").nth(12)).to_have_id(dismissed)
        assert page.locator(".trail-item").nth(13).get_attribute("id") == following
        assert page.evaluate("window.scrollY") > 1000
        assert page.locator(".trail-item").nth(12).evaluate("el => el.getBoundingClientRect().bottom") > 0
    watch.assert_clean()


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_an_empty_trail_leads_to_a_follow_whose_form_waits_for_input(live_server, language, viewport):
    def prepare() -> str:
        f.store(f.record("2611.00101", authors=["Ada Lovelace"]), at=timezone.now() - timedelta(days=1))
        cookie, _user = _signed_in("newcomer", language)
        return cookie

    cookie = in_thread(prepare)
    texts = TEXTS[language]
    with browser_page(viewport=VIEWPORTS[viewport]) as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/")
        expect(page.locator("[data-trail-empty]")).to_be_visible()
        expect(page.locator("[data-next-step=picks]")).to_be_visible()
        assert page.locator("#nav-follows").inner_text() == texts["follows"]
        screenshot(page, f"trail-empty-{language}-{viewport}", full_page=False)
        page.locator("[data-next-step=follow]").click()
        page.wait_for_url("**/follows/new/")
        assert page.locator("#nav-follows").get_attribute("aria-current") == "page"
        page.locator("a[href='/follows/new/?kind=author']").click()
        page.wait_for_url("**/follows/new/?kind=author")
        # Nothing typed: a hint of what comes, no "no author found".
        expect(page.locator("[data-author-hint]")).to_contain_text(texts["hint"])
        expect(page.locator(".candidates")).to_have_count(0)
        page.fill("#f-author", "Ada Lovelace")
        page.click("button[name=action][value=preview]")
        expect(page.locator(".candidate")).to_have_count(1)
        expect(page.locator("[data-author-hint]")).to_have_count(0)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0
    watch.assert_clean()


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_topic_threshold_is_said_in_words(live_server, language):
    def prepare() -> str:
        cookie, user = _signed_in("topical", language)
        follow_create(user=user, kind="topic", value={"description": "差分隐私", "threshold": 2.75}, name="Privacy")
        return cookie

    cookie = in_thread(prepare)
    with browser_page(viewport=VIEWPORTS["phone"]) as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/follows/")
        band = page.locator("[data-threshold-band]")
        expect(band).to_have_attribute("data-threshold-band", "broad")
        assert TEXTS[language]["broad"] in band.inner_text()
        page.goto(f"{live_server.url}/follows/new/?kind=topic")
        help_text = page.locator("#f-threshold-help")
        expect(help_text).to_be_visible()
        assert page.locator("#f-threshold").get_attribute("aria-describedby") == "f-threshold-help"
        screenshot(page, f"topic-threshold-{language}")
    watch.assert_clean()
