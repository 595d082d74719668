"""Research records in a real browser, in both languages: save a paper from a
library card, set its state and tags there (htmx, no reload, focus kept),
write a note with Markdown and TeX on its page, and find it on /records/;
and the XSS corpus in notes and tags stays inert wherever they are shown."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from accounts.models import User
from accounts.records.services import record_save
from harvest.models import Paper
from tests import factories as f
from tests.portal.browser.conftest import browser_page, screenshot
from tests.portal.browser.test_xss import ABSTRACT, TITLE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-hans": {"save": "保存到研究记录", "saved": "已保存", "heading": "我的研究记录", "count": "已保存 1 篇论文"},
    "en": {"save": "Save to my record", "saved": "Saved", "heading": "My research record", "count": "1 saved paper"},
}
NOTE = "**Key idea**: the loss $\\mathcal{L} = \\sum_i x_i^2$ and a [link](https://arxiv.org/abs/2611.00101)."


@pytest.fixture
def library():
    f.store(
        f.record("2611.00101", title="Diffusion policies for legged robots", categories=["cs.RO"]),
        f.record("2611.00102", title="Robot grasping", categories=["cs.RO"]),
        at=timezone.now() - timedelta(days=2),
    )


def signed_in(language: str) -> str:
    user = User.objects.create_user("researcher", password="x", language=language)
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def open_as(page, base: str, cookie: str, language: str) -> None:
    page.context.add_cookies(
        [
            {"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base},
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base},
        ]
    )


def settled(controls) -> None:
    """htmx attaches its listeners to swapped-in controls only when it settles
    them (a timer after the swap), and removes the htmx-added class in the same
    step; acting before that would race the page, as no person can."""
    expect(controls).not_to_have_class(re.compile(r"\bhtmx-added\b"))


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_researcher_saves_tags_notes_and_sets_state_without_reloading(live_server, library, language):
    texts, base = TEXTS[language], live_server.url
    cookie = signed_in(language)
    pk = Paper.objects.get(arxiv_id="2611.00101").pk
    with browser_page() as (page, watch):
        open_as(page, base, cookie, language)
        page.goto(f"{base}/papers/")
        page.evaluate("window.__same_page = true")  # gone if anything reloads the page
        controls = page.locator(f"#record-{pk}")
        toggle = page.locator(f"#record-{pk}-toggle")
        assert toggle.inner_text() == texts["save"]
        toggle.focus()
        page.keyboard.press("Enter")
        expect(controls).to_have_attribute("data-record", "saved")
        settled(controls)
        assert page.evaluate("document.activeElement.id") == f"record-{pk}-toggle"
        assert texts["saved"] in controls.inner_text()
        page.select_option(f"#record-{pk}-state", "reading")
        expect(controls).to_have_attribute("data-state", "reading")
        settled(controls)
        page.fill(f"#record-{pk}-tags", "robots, RL")
        page.press(f"#record-{pk}-tags", "Enter")
        expect(controls.locator(".tags li")).to_have_count(2)
        assert page.evaluate("document.activeElement.id") == f"record-{pk}-tags"
        assert page.evaluate("window.__same_page") is True
        screenshot(page, f"records-card-{language}")

        page.goto(f"{base}/papers/2611.00101/")
        page.fill(f"#record-{pk}-note", NOTE)
        page.click(f"#record-{pk}-apply")
        note = page.locator(f"#record-{pk} [data-note]")
        expect(note.locator("strong")).to_have_text("Key idea")
        expect(note.locator(".katex").first).to_be_visible()
        assert note.locator("a").get_attribute("href") == "https://arxiv.org/abs/2611.00101"
        screenshot(page, f"records-paper-{language}")

        page.goto(f"{base}/records/")
        assert page.locator("h1").inner_text() == texts["heading"]
        assert texts["count"] in page.locator("#record-counts").inner_text()
        expect(page.locator(".record-item")).to_have_count(1)
        listed = page.locator(".record-item [data-note]")  # rendered as on the paper's page
        expect(listed.locator("strong")).to_have_text("Key idea")
        expect(listed.locator(".katex").first).to_be_visible()
        assert "**" not in listed.inner_text() and "$" not in listed.inner_text()
        assert page.locator("[data-state-count=reading] strong").inner_text() == "1"
        page.goto(f"{base}/records/?tag=rl")
        expect(page.locator(".record-item")).to_have_count(1)
        page.goto(f"{base}/")
        expect(page.locator("[data-strip=saved] strong")).to_have_text("1")
        screenshot(page, f"records-page-{language}")
    watch.assert_clean()


def test_hostile_notes_and_tags_never_run(live_server, library):
    f.store(f.record("2611.66666", title=TITLE, abstract=ABSTRACT, categories=["cs.CR"]), at=timezone.now())
    user = User.objects.create_user("researcher", password="x")
    hostile_tags = ['<script>window.__xss="tag"</script>', '"><img src=x onerror="window.__xss=1">']
    for arxiv_id in ("2611.66666", "2611.00101"):
        record_save(user=user, paper=Paper.objects.get(arxiv_id=arxiv_id), tags=hostile_tags, note=ABSTRACT + TITLE)
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    base = live_server.url
    with browser_page() as (page, watch):
        open_as(page, base, cookie, "zh-hans")
        for path in ("/papers/2611.66666/", "/papers/2611.00101/", "/records/", "/papers/", "/records/?q=click"):
            page.goto(f"{base}{path}")
            page.wait_for_selector("html[data-tex=rendered]")
            assert page.evaluate("window.__xss") is None, path
            assert page.locator('a[href^="javascript"], iframe, main img, main svg[onload]').count() == 0, path
            assert page.locator("main script").count() == 0, path
        assert '<script>window.__xss="tag"</script>' in page.locator("main").inner_text()
        page.goto(f"{base}/papers/2611.00101/")
        assert "<script>window.__xss" in page.locator("[data-note]").inner_text()
        screenshot(page, "records-xss")
    assert watch.dialogs == [] and watch.page_errors == [] and watch.outside_requests == []


BULK_REFUSALS = {
    "zh-hans": {"none": "选择：请至少选择一篇论文。", "tag": "标签：请给出标签名。"},
    "en": {"none": "Select: Select at least one paper.", "tag": "Tag: Give a tag name."},
}


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_refused_bulk_action_names_the_field_as_the_form_labels_it(live_server, library, language):
    """Apply with nothing selected, then add an empty tag: each refusal names
    the bulk form's field by its label, never the parameter (record, tag)."""
    base, refused = live_server.url, BULK_REFUSALS[language]
    cookie = signed_in(language)
    record_save(user=User.objects.get(username="researcher"), paper=Paper.objects.get(arxiv_id="2611.00101"))
    with browser_page() as (page, watch):
        open_as(page, base, cookie, language)
        page.goto(f"{base}/records/")
        page.locator("#bulk-action").select_option("tag")
        page.locator("[data-action=bulk]").click()
        expect(page.locator("main")).to_contain_text(refused["none"])
        page.locator("input[name=record]").first.check()
        page.locator("#bulk-action").select_option("tag")
        page.locator("[data-action=bulk]").click()
        expect(page.locator("main")).to_contain_text(refused["tag"])
        assert "record:" not in page.locator("main").inner_text() and "tag:" not in page.locator("main").inner_text()
    watch.assert_clean()
