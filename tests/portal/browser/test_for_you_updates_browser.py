""" "For you" follows a thumb within seconds, in a real browser and with a real
Celery worker on the Redis broker, in both languages: a researcher whose
ranking was learnt from three saved papers on differential privacy asks for
more like a paper on another topic; the trail says at once that it is
updating, and seconds later shows the new order by itself, the paper risen."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.jobs import retrain_and_rescore
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest
from tests.accounts.recommend.test_for_you import OTHERS, TOPIC, _embed, _papers, _records
from tests.celery_worker import running_worker
from tests.portal.browser.conftest import browser_page, in_thread, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]

UPDATING = {"zh-hans": "正在根据你刚才的挑选", "en": "Updating this order"}
# Retraining waits RECOMMEND_RETRAIN_DELAY_SECONDS, then trains and rescores:
# seconds on an idle machine; the bound leaves room for a loaded test machine.
WITHIN_MS = 90_000


@pytest.fixture
def researcher() -> tuple[str, User, set[int]]:
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
    others = set(Paper.objects.filter(arxiv_id__in=[p["arxiv_id"] for need in OTHERS for p in groups[need]]))
    return client.cookies[settings.SESSION_COOKIE_NAME].value, user, {paper.pk for paper in others}


@pytest.fixture
def worker(subprocess_env):
    with running_worker(subprocess_env, queues="default", hostname="test-flows") as process:
        yield process


def _order(page) -> list[int]:
    return [int(item) for item in page.locator("[data-item]").evaluate_all("els => els.map(e => e.dataset.item)")]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_thumb_reorders_for_you_within_seconds_and_says_so_meanwhile(live_server, researcher, worker, language):
    cookie, user, others = researcher
    in_thread(lambda: User.objects.filter(pk=user.pk).update(language=language))
    with browser_page() as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
        page.goto(f"{live_server.url}/trail/")
        expect(page.locator("[data-ranking-updating]")).to_have_count(0)
        before = _order(page)
        # The last paper off the saved topic on the first page: it can only rise.
        liked_pk = [pk for pk in before if pk in others][-1]
        page.locator(f"#rating-{liked_pk} [data-rate=up]").click()
        updating = page.locator("[data-ranking-updating]")
        expect(updating).to_contain_text(UPDATING[language])
        screenshot(page, f"trail-updating-{language}", full_page=False)
        # No reload by the reader: the trail polls while it updates and shows the new order.
        expect(updating).to_have_count(0, timeout=WITHIN_MS)
        after = _order(page)
        assert after != before and after.index(liked_pk) < before.index(liked_pk)
        expect(page.locator(f"#rating-{liked_pk}")).to_have_attribute("data-rating", "up")
    watch.assert_clean()
