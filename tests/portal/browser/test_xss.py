"""Hostile harvested text: none of it runs."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.models import User
from tests import factories as f
from tests.portal.browser.conftest import browser_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLE = '<script>window.__xss = "title"</script> $\\href{javascript:window.__xss="href"}{click}$ <b>bold</b>'
ABSTRACT = (
    "<img src=x onerror=\"window.__xss='img'\"> "
    "<svg onload=\"window.__xss='svg'\"><script>window.__xss='svg-script'</script></svg> "
    "$\\href{javascript:alert(1)}{x}$ and $$\\url{javascript:alert(2)}$$ "
    '<a href="javascript:alert(3)">link</a> </p><iframe src="javascript:alert(4)"></iframe>'
)


@pytest.fixture
def hostile_paper():
    f.store(
        f.record(
            "2611.66666",
            title=TITLE,
            abstract=ABSTRACT,
            categories=["cs.CR"],
            authors=['"><img src=x onerror=alert(5)>', "Mallory"],
            comments="<script>alert(6)</script>",
        ),
        at=timezone.now() - timedelta(hours=1),
    )


@pytest.mark.parametrize("path", ["/", "/papers/", "/papers/?q=click", "/papers/2611.66666/", "/briefings/new/"])
def test_hostile_title_and_abstract_never_run(live_server, hostile_paper, path):
    with browser_page() as (page, watch):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_selector("html[data-tex=rendered]")
        assert page.evaluate("window.__xss") is None
        assert page.locator('a[href^="javascript"], iframe, main img, main svg[onload]').count() == 0
        assert page.locator("main script").count() == 0
        text = page.locator("main").inner_text()
        if path != "/papers/?q=click":
            assert '<script>window.__xss = "title"</script>' in text
        screenshot(page, "xss" + path.replace("/", "_").replace("?", "_").replace("=", "-"))
    assert watch.dialogs == []
    assert watch.page_errors == []
    assert watch.outside_requests == []


def test_hostile_text_on_the_picks_page_never_runs(live_server, hostile_paper):
    """A signed-in reader with nothing followed or saved is offered the day's
    computer science papers: the hostile one among them, as text."""
    client = Client()
    client.force_login(User.objects.create_user("reader", password="x"))
    with browser_page() as (page, watch):
        page.context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": live_server.url,
                }
            ]
        )
        page.goto(f"{live_server.url}/trail/picks/")
        page.wait_for_selector("html[data-tex=rendered]")
        assert page.locator("[data-pick='2611.66666']").count() == 1
        assert page.evaluate("window.__xss") is None
        assert page.locator('a[href^="javascript"], iframe, main img, main svg[onload]').count() == 0
        assert page.locator("main script").count() == 0
        assert '<script>window.__xss = "title"</script>' in page.locator("main").inner_text()
    assert watch.dialogs == [] and watch.page_errors == [] and watch.outside_requests == []
