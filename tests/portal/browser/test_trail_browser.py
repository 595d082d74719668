"""A researcher in a real browser, in both languages: follows a category and
an author from a paper page and a search from the library (each through the
prefilled form and its preview), reads the trail (a paper whose page they
opened is read already), and sees the account strip the overview loads, with
no console error."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from accounts.follows.services import follow_create
from accounts.models import User
from tests import factories as f
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-hans": {
        "follow": "关注",
        "preview": "这个关注会带来的论文",
        "saved": "已关注",
        "trail": "足迹",
        "new": "新论文 · v1",
        "strip": ["个关注", "条足迹未读", "已保存论文"],
    },
    "en": {
        "follow": "Follow",
        "preview": "What this follow would have brought",
        "saved": "Following",
        "trail": "Trail",
        "new": "New paper · v1",
        "strip": ["follows", "unread in your trail", "saved papers"],
    },
}


@pytest.fixture
def library():
    now = timezone.now()
    f.store(
        f.record(
            "2611.00101",
            title="Diffusion policies for legged robots",
            abstract="A diffusion policy walks.",
            categories=["cs.RO", "cs.LG"],
            authors=["Ada Lovelace", "Alan Turing"],
        ),
        f.record("2611.00102", title="Robot grasping", categories=["cs.RO"], authors=["Grace Hopper"]),
        f.record("2611.00103", title="Proof search", categories=["cs.LO"], authors=["A. Lovelace"]),
        f.record("2611.00104", title="Diffusion for text", categories=["cs.CL"], authors=["Grace Hopper"]),
        at=now - timedelta(days=2),
    )


@pytest.fixture
def session_cookie(library) -> str:
    """A user created directly, signed in by the test client's session."""
    client = Client()
    client.force_login(User.objects.create_user("researcher", password="x"))
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def save_follow(page, texts, name: str) -> None:
    """On the prefilled create form: the preview is shown; name it and follow."""
    assert texts["preview"] in page.locator("#preview").inner_text()
    page.fill("#f-name", name)
    page.click("button[name=action][value=save]")
    page.wait_for_url("**/follows/")
    assert texts["saved"] in page.locator(".messages").inner_text()


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_researcher_follows_reads_the_trail_and_sees_the_strip(live_server, session_cookie, language):
    texts = TEXTS[language]
    base = live_server.url
    # A signed-in reader's pages are in the language saved with the account.
    in_thread(lambda: User.objects.filter(username="researcher").update(language=language))
    with browser_page() as (page, watch):
        page.context.add_cookies(
            [
                {"name": settings.SESSION_COOKIE_NAME, "value": session_cookie, "url": base},
                {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base},
            ]
        )
        # The paper page says it was opened once loaded (a POST; its GET writes nothing).
        with page.expect_response("**/papers/2611.00101/opened/"):
            page.goto(f"{base}/papers/2611.00101/")
        page.click("[data-follow-category='cs.RO']")
        assert page.locator("#f-code").input_value() == "cs.RO"
        assert page.locator("[data-preview='7'] strong").inner_text() == "2"
        save_follow(page, texts, "Robotics")

        # Opened again, the paper's card that the follow brought is read: one of two left.
        with page.expect_response("**/papers/2611.00101/opened/"):
            page.goto(f"{base}/papers/2611.00101/")
        expect(page.locator("#nav-trail .nav-count")).to_have_text("1")
        page.click("[data-follow-author='Ada Lovelace']")
        candidates = page.locator(".candidate")
        expect(candidates).to_have_count(2)
        assert page.locator("input[name=variants][value='Ada Lovelace']").is_checked()
        page.check("input[name=variants][value='A. Lovelace']")
        page.click("button[name=action][value=preview]")
        assert page.locator("[data-preview='7'] strong").inner_text() == "2"
        screenshot(page, f"follow-author-{language}")
        save_follow(page, texts, "Ada")

        page.goto(f"{base}/papers/?q=diffusion&category=cs.RO")
        page.click("[data-follow-search]")
        assert page.locator("#f-q").input_value() == "diffusion"
        assert page.locator("[data-preview='7'] strong").inner_text() == "1"
        save_follow(page, texts, "Diffusion in robotics")
        expect(page.locator("tr.follow")).to_have_count(3)
        screenshot(page, f"follows-{language}")

        page.click("#nav-trail")
        page.wait_for_url("**/trail/")
        expect(page.locator(".trail-item")).to_have_count(3)
        expect(page.locator(".trail-item[data-unread]")).to_have_count(2)
        first = page.locator(".trail-item").filter(has_text="Diffusion policies for legged robots")
        expect(first).not_to_have_attribute("data-unread", "")  # opened above
        expect(first.locator(".trail-why li")).to_have_count(3)
        assert first.locator(".paper-card__title mark").first.inner_text() == "Diffusion"
        assert texts["new"] in first.inner_text()
        screenshot(page, f"trail-{language}")
        page.locator(".trail-item").filter(has_text="Robot grasping").locator("[data-action=read]").click()
        page.wait_for_url("**/trail/")
        expect(page.locator(".trail-item[data-unread]")).to_have_count(1)
        assert page.locator("#nav-trail .nav-count").inner_text() == "1"

        page.goto(f"{base}/")
        strip = page.locator("#account-strip [data-strip=follows] strong")
        strip.wait_for()
        assert strip.inner_text() == "3"
        assert page.locator("[data-strip=unread] strong").inner_text() == "1"
        assert page.locator("[data-strip=saved] strong").inner_text() == "0"
        for expected in texts["strip"]:
            assert expected in page.locator("#account-strip").inner_text()
        assert page.locator("#nav-trail").inner_text().startswith(texts["trail"])
        assert page.locator("#nav-trail .nav-count").inner_text() == "1"
        screenshot(page, f"overview-strip-{language}")
    watch.assert_clean()


def test_a_signed_out_reader_is_invited_to_sign_in(live_server, library):
    with browser_page() as (page, watch):
        page.goto(f"{live_server.url}/")
        invitation = page.locator("#account-strip a[href='/accounts/signup/']")
        invitation.wait_for()
        expect(page.locator("#account-strip a[href^='/login/']")).to_have_count(1)
        assert "正在读取账号与研究记录" not in page.locator("body").inner_text()
        assert page.locator("#nav-trail").inner_text() == ""
    watch.assert_clean()


def test_the_researcher_pages_fit_a_phone(live_server, session_cookie):
    user = User.objects.get(username="researcher")
    follow_create(user=user, kind="author", value={"author": "Ada Lovelace"}, name="Ada")
    follow_create(user=user, kind="filters", value={"q": "diffusion", "category": "cs.RO cs.LG"}, name="Diffusion")
    with browser_page(viewport={"width": 390, "height": 844}) as (page, watch):
        page.context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": session_cookie, "url": live_server.url}]
        )
        for path, name in (
            ("/trail/", "trail-phone"),
            ("/follows/", "follows-phone"),
            ("/follows/new/?kind=author&author=Ada+Lovelace", "follow-author-phone"),
        ):
            page.goto(f"{live_server.url}{path}")
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, path
            screenshot(page, name)
        expect(page.locator(".candidate")).to_have_count(2)
    watch.assert_clean()
