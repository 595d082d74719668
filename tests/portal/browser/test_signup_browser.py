"""A newcomer in a real browser, in both languages: signs up, confirms the
address from the mail a real local SMTP server received, signs in (and lands
on the follows page, the first step, with 关注 in the navigation), follows a
category from a paper page, finds it on the trail and in the strip, and next
time lands on the trail."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from tests import factories as f
from tests.portal.browser.conftest import browser_page, in_thread

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a long and careful passphrase"
TRAIL = {"zh-hans": "足迹", "en": "Trail"}
FOLLOWS = {"zh-hans": "关注", "en": "Follows"}


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_newcomer_signs_up_confirms_signs_in_and_follows(live_server, mailbox, language):
    in_thread(
        lambda: f.store(
            f.record("2611.00101", title="Diffusion policies for legged robots", categories=["cs.RO", "cs.LG"]),
            at=timezone.now() - timedelta(days=1),
        )
    )
    base = live_server.url
    email = f"newcomer-{language}@example.org"
    with browser_page() as (page, watch):
        page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base}])
        page.goto(f"{base}/accounts/signup/")
        page.fill("input[name=username]", f"newcomer_{language.replace('-', '_')}")
        page.fill("input[name=email]", email)
        page.fill("input[name=password1]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.click("section.account form button[type=submit]")
        page.wait_for_url("**/accounts/confirm-email/")

        link = urlsplit(mailbox.link(email, r"https?://\S+/accounts/confirm-email/\S+/")).path
        page.goto(f"{base}{link}")
        page.click("section.account form button[type=submit]")
        page.wait_for_url("**/accounts/login/**")

        page.fill("input[name=username]", email)
        page.fill("input[name=password]", PASSWORD)
        page.click("section.account form button[type=submit]")
        page.wait_for_url("**/follows/")
        assert page.locator("html").get_attribute("lang") == ("zh-Hans" if language == "zh-hans" else "en")
        assert page.locator("#nav-follows").inner_text() == FOLLOWS[language]
        assert page.locator("#nav-follows").get_attribute("aria-current") == "page"
        expect(page.locator("[data-new-kind]")).to_have_count(5)

        page.goto(f"{base}/papers/2611.00101/")
        page.click("[data-follow-category='cs.RO']")
        page.fill("#f-name", "Robotics")
        page.click("button[name=action][value=save]")
        page.wait_for_url("**/follows/")

        page.goto(f"{base}/trail/")
        expect(page.locator(".trail-item")).to_have_count(1)
        assert TRAIL[language] in page.locator("#nav-trail").inner_text()
        page.goto(f"{base}/")
        expect(page.locator("[data-strip=unread] strong")).to_have_text("1")
        expect(page.locator("#nav-follows")).to_have_text(FOLLOWS[language])

        page.context.clear_cookies()
        page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base}])
        page.goto(f"{base}/accounts/login/")
        page.fill("input[name=username]", email)
        page.fill("input[name=password]", PASSWORD)
        page.click("section.account form button[type=submit]")
        page.wait_for_url("**/trail/")
    watch.assert_clean()
    saved = in_thread(lambda: User.objects.get(email=email).language)
    assert saved == language
