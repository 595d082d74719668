"""The four pages a researcher meets first, photographed at 1280 px with real
papers, a reader's follow and every source's latest check: the trail, the
picks page, the sources page and the library (test-output/screenshots/
`screen-<page>-1280.png`; docs/screenshots/public/ holds the committed
before/after pairs). Each fits the width and opens on what it is for."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.follows.services import follow_create
from accounts.models import User
from harvest.models import HarvestRun, Source
from harvest.sources.registry import SOURCES
from tests import factories as f
from tests.accounts.conftest import harvest, record
from tests.portal.browser.conftest import browser_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
COLLECTION = Path(__file__).parents[2] / "fixtures" / "search_eval" / "papers.jsonl"
PAGES = {
    "trail": ("/trail/", ".trail-item"),
    "picks": ("/trail/picks/", "input[name=papers]"),
    "sources": ("/sources/", "[data-source]"),
    "library": ("/papers/", "article.paper-card"),
}


@pytest.fixture
def reader_session() -> str:
    """Twenty real software-engineering papers harvested 40 minutes ago, a
    reader who follows cs.SE, and each source checked once (one of them
    failed)."""
    with COLLECTION.open(encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines if '"cs.SE"' in line][:20]
    reader = User.objects.create_user("reader", password="x")
    follow_create(user=reader, kind="category", value={"code": "cs.SE"}, name="Software engineering")
    now = timezone.now()
    harvest(
        *(
            record(f"2611.{n:05d}", title=p["title"], abstract=p["abstract"], categories=["cs.SE"])
            for n, p in enumerate(papers)
        ),
        at=now - timedelta(minutes=40),
    )
    for slug, source_class in SOURCES.items():
        source = f.source(slug, source_class.name, checkpoint={"next_from": "2026-11-12"})
        f.run(source, started_at=now - timedelta(minutes=40), seen=20, new_papers=20)
    f.run(
        Source.objects.get(slug="hf_daily"),
        started_at=now - timedelta(minutes=10),
        status=HarvestRun.Status.FAILED,
        error="HTTP 503 from huggingface.co",
    )
    client = Client()
    client.force_login(reader)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_the_first_pages_fit_1280_px_and_open_on_what_they_are_for(live_server, reader_session):
    base = live_server.url
    with browser_page(viewport={"width": 1280, "height": 900}) as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": reader_session, "url": base}])
        for name, (path, first) in PAGES.items():
            page.goto(f"{base}{path}")
            screenshot(page, f"screen-{name}-1280", full_page=False)
            assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
            assert page.locator(first).first.bounding_box()["y"] < 900, name
    watch.assert_clean()
