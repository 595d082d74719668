"""Public pages for the public, in a real browser and both languages: under
DEBUG (as `make run` runs) a missing paper or address shows the site's own
404 page, never Django's list of URL patterns."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from tests.portal.browser.conftest import browser_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOT_FOUND = {"zh-hans": "未找到", "en": "Not found"}


def speaking(page, base: str, language: str) -> None:
    page.context.add_cookies([{"name": django_settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base}])


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_missing_paper_under_debug_is_the_sites_own_404(live_server, settings, language):
    settings.DEBUG = True
    base = live_server.url
    with browser_page() as (page, _watch):
        speaking(page, base, language)
        for path in ("/papers/2611.99999/", "/no-such-page/"):
            response = page.goto(f"{base}{path}")
            assert response.status == 404, path
            assert page.locator("main h1").inner_text() == NOT_FOUND[language], path
            text = page.locator("body").inner_text()
            assert "URLconf" not in text and "Django" not in text, path
            assert page.locator("nav a[href='/papers/']").count() >= 1  # the site's navigation
