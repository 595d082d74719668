"""The trail "for you" in a real browser, in both languages: a researcher
who saved three real papers on differential privacy opens their trail of
the day's papers (all in the one category they follow), sees the privacy
papers first with why, says how the order was made, and switches to newest
first and back; the switch is kept."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.trail_order import for_you_page
from accounts.records.services import record_save
from accounts.trail.models import TrailProfile
from accounts.trail.selectors import trail_page
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest
from tests.accounts.recommend.test_for_you import OTHERS, TOPIC, _embed, _papers, _records
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-hans": {"for_you": "为你排序", "newest": "最新在前", "why": "排在这里的原因", "seed": "你保存的 3 篇论文"},
    "en": {
        "for_you": "For you",
        "newest": "Newest first",
        "why": "Why it ranks here",
        "seed": "the 3 papers you saved",
    },
}


@pytest.fixture
def researcher() -> tuple[str, User]:
    groups = _papers((TOPIC, *OTHERS))
    user = User.objects.create_user("ranked", password="x")
    follow_create(user=user, kind="category", value={"code": "cs.LG"})
    harvest(*_records(groups[TOPIC][:3]), at=ago(days=1, hours=2))
    harvest(*_records(groups[TOPIC][3:] + [p for need in OTHERS for p in groups[need]]), at=ago(minutes=30))
    _embed()
    for paper in groups[TOPIC][:3]:
        record_save(user=user, paper=Paper.objects.get(arxiv_id=paper["arxiv_id"]))
    retrain_and_rescore(user.pk)
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value, user


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_trail_opens_for_you_with_why_and_switches_to_newest(live_server, researcher, language):
    cookie, user = researcher
    texts = TEXTS[language]
    in_thread(lambda: User.objects.filter(pk=user.pk).update(language=language))
    ranked = in_thread(lambda: [e.item_id for e in for_you_page(user=User.objects.get(pk=user.pk)).entries])
    newest = in_thread(lambda: [e.item_id for e in trail_page(user=User.objects.get(pk=user.pk)).entries])
    assert ranked != newest
    with browser_page() as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/")
        switch = page.locator("[data-trail-order]")
        assert switch.get_attribute("data-trail-order") == "for_you"
        assert page.locator("[data-order=for_you]").get_attribute("aria-pressed") == "true"
        assert page.locator("[data-order=for_you]").inner_text() == texts["for_you"]
        assert texts["seed"] in page.locator("[data-ranking-seed]").inner_text()
        cards = page.locator("[data-item]")
        assert [int(item) for item in cards.evaluate_all("els => els.map(e => e.dataset.item)")] == ranked
        assert texts["why"] in cards.first.locator("[data-reason=ranking]").inner_text()
        screenshot(page, f"trail-for-you-{language}")
        page.locator("[data-order=newest]").click()
        page.wait_for_url("**/trail/")
        assert page.locator("[data-order=newest]").get_attribute("aria-pressed") == "true"
        assert page.locator("[data-order=newest]").inner_text() == texts["newest"]
        assert [int(item) for item in cards.evaluate_all("els => els.map(e => e.dataset.item)")] == newest
        page.reload()
        assert page.locator("[data-trail-order]").get_attribute("data-trail-order") == "newest"
        page.locator("[data-order=for_you]").click()
        page.wait_for_url("**/trail/")
        assert [int(item) for item in cards.evaluate_all("els => els.map(e => e.dataset.item)")] == ranked
    watch.assert_clean()
    assert in_thread(lambda: TrailProfile.objects.get(user_id=user.pk).order) == "for_you"
