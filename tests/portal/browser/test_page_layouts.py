"""The daily pages at a desktop's and a phone's width: the library, a reader's
trail and sign-up fit the width, and their first screen shows what the page
is for (papers, trail cards, the sign-up form). Each is photographed
(test-output/screenshots/, `<page>-<width>.png`; docs/screenshots/ holds the
committed before/after pairs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.trail.matching import match_versions
from tests import factories as f
from tests.portal.browser.conftest import browser_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
COLLECTION = Path(__file__).parents[2] / "fixtures" / "search_eval" / "papers.jsonl"
WIDTHS = {1280: 900, 390: 844}


@pytest.fixture
def reader_session() -> str:
    """Twenty real papers, harvested, and a reader who follows their category."""
    with COLLECTION.open(encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines if '"cs.SE"' in line][:20]
    reader = User.objects.create_user("reader", password="x")
    follow_create(user=reader, kind="category", value={"code": "cs.SE"}, name="Software engineering")
    stored = f.store(
        *(
            f.record(f"2611.{n:05d}", title=p["title"], abstract=p["abstract"], categories=["cs.SE"])
            for n, p in enumerate(papers)
        ),
        at=timezone.now(),
    )
    match_versions(version_ids=stored.created_version_ids)
    client = Client()
    client.force_login(reader)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_library_trail_and_sign_up_fit_and_open_on_what_they_are_for(live_server, reader_session, width):
    height = WIDTHS[width]
    base = live_server.url
    with browser_page(viewport={"width": width, "height": height}) as (page, watch):
        pages = {
            "library": ("/papers/", "article.paper-card"),
            "signup": ("/accounts/signup/", "form button[type=submit]"),
        }
        for name, (path, first) in pages.items():
            page.goto(f"{base}{path}")
            screenshot(page, f"{name}-{width}", full_page=False)
            assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
            assert page.locator(first).first.bounding_box()["y"] < height, (name, width)
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": reader_session, "url": base}])
        page.goto(f"{base}/trail/")
        screenshot(page, f"trail-{width}", full_page=False)
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
        assert page.locator(".trail-item").first.bounding_box()["y"] < height
        assert page.locator(".trail-item").count() == 20
    watch.assert_clean()
