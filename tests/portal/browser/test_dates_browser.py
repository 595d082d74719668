"""Dates and badges a researcher can trust, in a real browser and both
languages: a back-fill's 2016 papers stored today are labelled archival on
the trail and on their page, never new; a revision whose earlier version is
not stored promises no diff, one whose is leads to it; the picks page never
offers 2016 papers as arXiv's latest listing, and says which listing it shows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from accounts.follows.services import follow_create
from accounts.models import User
from harvest.source_records import VersionRecord
from tests.accounts.conftest import ago, harvest, record
from tests.factories import latest_listing
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
MARCH_2016 = datetime(2016, 3, 9, 12, tzinfo=UTC)
TEXTS = {
    "zh-hans": {
        "archival": "历史论文 · 2016-03 发布",
        "not_stored": "早期版本未收录",
        "revision": "修订 · v2",
        "what_changed": "查看改动",
        "new": "新论文",
        "not_latest": "论文库还没有这些分类中 arXiv 最新公告",
        "held": "下面是库中最近一次公告 2016-03-10 的论文",
    },
    "en": {
        "archival": "Archival · published 2016-03",
        "not_stored": "earlier versions not stored",
        "revision": "Revision · v2",
        "what_changed": "what changed",
        "new": "New paper",
        "not_latest": "The library holds no paper in these categories from arXiv's latest listing",
        "held": "these are from the newest listing it holds, 2016-03-10",
    },
}


@pytest.fixture
def researcher() -> tuple[str, int]:
    user = User.objects.create_user("dated", password="x")
    follow_create(user=user, kind="category", value={"code": "cs.SE"}, name="Software engineering")
    # The recent papers come by an author follow in another category, so
    # that whatever the day, the picks page (category follows) has none.
    follow_create(user=user, kind="author", value={"author": "Grace Hopper"}, name="Hopper")
    # The offline bundle's case: March 2016 papers a back-fill stores today.
    harvest(
        record("1603.00001", title="Archival testing paper", categories=["cs.SE"], first_submitted=MARCH_2016),
        record("1603.00002", title="Another archival paper", categories=["cs.SE"], first_submitted=MARCH_2016),
        at=ago(minutes=30),
    )
    # Arrived at v2, v1 never stored (an API search gives the latest only).
    recent = {"categories": ["cs.PL"], "authors": ["Grace Hopper"]}
    gapped = record("2612.00001", title="Arrived at its second version", **recent)
    gapped.versions = [VersionRecord(number=2, submitted=ago(days=1), size="1kb", source_type="D")]
    harvest(gapped, at=ago(minutes=20))
    # A revision whose v1 text the library stored: its diff is shown.
    harvest(record("2612.00002", title="Revised paper", abstract="First claim.", **recent), at=ago(days=3))
    harvest(
        record("2612.00002", title="Revised paper", abstract="Second claim.", versions=2, **recent),
        at=ago(minutes=10),
    )
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, user.pk


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_badges_say_archival_and_lead_only_to_diffs_that_exist(live_server, researcher, language):
    cookie, user_id = researcher
    texts = TEXTS[language]
    in_thread(lambda: User.objects.filter(pk=user_id).update(language=language))
    with browser_page() as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/?order=newest")
        archival = page.locator("[data-item]").filter(has=page.locator('[data-arxiv-id="1603.00001"]'))
        expect(archival.locator(".trail-head [data-badge-kind=archival]")).to_have_text(texts["archival"])
        expect(archival.locator(".trail-head")).not_to_contain_text(texts["new"])
        gapped = page.locator("[data-item]").filter(has=page.locator('[data-arxiv-id="2612.00001"]'))
        expect(gapped.locator(".trail-head")).to_contain_text(texts["revision"])
        expect(gapped.locator("[data-diff=not_stored]")).to_have_text(texts["not_stored"])
        expect(gapped.locator("[data-what-changed]")).to_have_count(0)
        # An archival badge has its own quiet style, neither a new paper's nor a revision's.
        style = "e => getComputedStyle(e).backgroundColor + ' ' + getComputedStyle(e).color"
        quiet = archival.locator("[data-badge-kind=archival]").evaluate(style)
        others = {
            gapped.locator(".badge--revision").evaluate(style),
            page.evaluate(
                "() => { const b = document.createElement('span'); b.className = 'badge'; document.body.append(b);"
                " return getComputedStyle(b).backgroundColor + ' ' + getComputedStyle(b).color; }"
            ),
        }
        assert quiet not in others and len(others) == 2
        screenshot(page, f"dates-trail-{language}", full_page=False)
        # The revision's link leads to its diff on the paper's page.
        revised = page.locator("[data-item]").filter(has=page.locator('[data-arxiv-id="2612.00002"]'))
        revised.locator("[data-what-changed]").click()
        page.wait_for_url("**/papers/2612.00002/#v2")
        expect(page.locator("#v2 .version-change ins")).to_have_text("Second")
        expect(page.locator("#v2 .version-change del")).to_have_text("First")
        # The archival paper's page calls it what the trail called it.
        page.goto(f"{live_server.url}/papers/1603.00001/")
        expect(page.locator(".paper [data-badge-kind=archival]")).to_have_text(texts["archival"])
        expect(page.locator(".paper .paper-card__meta")).not_to_contain_text(texts["new"])
        page.goto(f"{live_server.url}/papers/2612.00001/")
        expect(page.locator(".paper .paper-card__meta")).to_contain_text(texts["revision"])
        expect(page.locator(".paper [data-what-changed]")).to_have_count(0)
        # The picks page: no paper of arXiv's latest listing, so the newest held one, named as such.
        page.goto(f"{live_server.url}/trail/picks/")
        note = page.locator("[data-picks-not-latest]")
        expect(note).to_contain_text(texts["not_latest"])
        expect(note).to_contain_text(texts["held"])
        expect(note).to_have_attribute("data-picks-not-latest", latest_listing().isoformat())
        offered = page.locator("input[name=papers]").evaluate_all("els => els.map(e => e.value)")
        screenshot(page, f"dates-picks-{language}", full_page=False)
    watch.assert_clean()
    assert sorted(offered) == ["1603.00001", "1603.00002"]
