"""Section links in a real browser, in both languages: a guided reading written
from arXiv's HTML of 2501.11120v1 (tests/fixtures/fulltext/) and an answer
citing one of its sections each link `§N` to PAPERTRAIL_ARXIV_HTML_URL's
`<id>v<n>#<anchor>`, which here is a local server holding that HTML, where
the link lands on the section; the reading says it was written from the full
text (another paper's, from the abstract only); and markup in the paper's
section headings, echoed by the model, is shown as text and never runs."""

from __future__ import annotations

import dataclasses
import gzip
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from accounts.models import User
from digests.llm import escape_data
from digests.models import Ask, GuidedReading
from digests.services import Outcome, reading_write, readings_create_for_versions
from harvest.fulltext.document import Document
from harvest.models import Version
from tests.digests.ask_library import store_library
from tests.digests.fake_anthropic import default_reading
from tests.digests.test_ask_passages import QUESTION, passages_in
from tests.digests.test_fulltext_readings import citing_reading
from tests.harvest.fulltext_passages import ARXIV_ID, html_document, store_full_text
from tests.portal.browser.conftest import LOOPBACK, browser_page, screenshot
from tests.replay_server import Reply, fixture_bytes

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A reading's fields in the order the page shows them.
FIELDS = ("problem", "method", "results", "limitations", "changes")
FLAKY = {"1906.00673", "2005.06826", "2101.09077"}
HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
SOURCE = {
    "zh-hans": {"full": "据全文撰写（arXiv HTML）", "abstract": "仅据摘要撰写。", "section": "在 arXiv 上查看此章节"},
    "en": {
        "full": "Written from the full text (arXiv HTML)",
        "abstract": "Written from the abstract only.",
        "section": "This section on arXiv",
    },
}


def hostile_headings(document: Document) -> Document:
    """The paper with markup after every section heading, as a hostile or broken rendering could give it."""
    sections = tuple(dataclasses.replace(s, heading=f"{s.heading} {HOSTILE}") for s in document.sections)
    return dataclasses.replace(document, sections=sections)


def reading_echoing_a_heading(params: dict) -> dict:
    """The reading citing the sections it was given, its problem quoting the hostile heading."""
    assert escape_data(HOSTILE) in params["messages"][0]["content"]  # the prompt held it as data
    reading = citing_reading(params)
    for language in ("zh", "en"):
        reading[language]["problem"] += f" {HOSTILE}"
    return reading


def answer_echoing_a_heading(params: dict) -> dict:
    """An answer citing the first passage given, inline and listed, and quoting its heading's markup."""
    arxiv_id, version, section, text = passages_in(params)[0]
    assert escape_data(HOSTILE) in text
    cite = f"[arXiv:{arxiv_id} v{version} §{section}]"
    return {
        "synthesis": f"Models can describe it {cite}.",
        "points": [
            {
                "text": f"The section {HOSTILE} says so {cite}.",
                "citations": [{"arxiv_id": arxiv_id, "version": version, "section": section}],
            }
        ],
    }


def written_reading(version: Version) -> GuidedReading:
    (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
    assert reading_write(reading_id=reading_id) == Outcome.DONE
    return GuidedReading.objects.get(pk=reading_id)


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_readings_and_an_answers_section_links_land_on_arxivs_sections_and_headings_stay_text(
    live_server, fake_llm, replay_server, settings, tmp_path, monkeypatch, language
):
    settings.VAR_DIR = tmp_path
    settings.PAPERTRAIL_SUMMARY_SCOPE = "cs"
    settings.PAPERTRAIL_SUMMARY_MAX_AGE_DAYS = 0
    mirror = f"{replay_server.url}/html"
    settings.PAPERTRAIL_ARXIV_HTML_URL = mirror
    replay_server.default(
        f"/html/{ARXIV_ID}v1",
        Reply(body=gzip.decompress(fixture_bytes("fulltext/2501.11120v1.html.gz")), content_type="text/html"),
    )
    store_library(FLAKY)
    version = store_full_text(hostile_headings(html_document()), arxiv_id=ARXIV_ID, monkeypatch=monkeypatch)
    fake_llm.reading_for = reading_echoing_a_heading
    reading = written_reading(version)
    assert reading.source == GuidedReading.Source.FULL_TEXT
    fields = reading.citations["fields"]
    cited = [c for name in FIELDS for c in fields.get(name, ())]
    assert cited and all(c["url"] == f"{mirror}/{ARXIV_ID}v1#{c['anchor']}" for c in cited)
    fake_llm.reading_for = default_reading
    abstract_only = written_reading(Version.objects.get(paper__arxiv_id=sorted(FLAKY)[0]))
    assert abstract_only.source == GuidedReading.Source.ABSTRACT

    fake_llm.reading_for = answer_echoing_a_heading
    user = User.objects.create_user("reader", password="x", language=language)
    client = Client()
    client.force_login(user)
    answer_path = client.post(reverse("portal:ask"), {"question": QUESTION}).url
    (passage,) = Ask.objects.get().answer["passages"]
    answer_url = f"{mirror}/{ARXIV_ID}v1#{passage['anchor']}"
    base, texts = live_server.url, SOURCE[language]

    with browser_page(locale="zh-CN" if language == "zh-hans" else "en-US") as (page, watch):
        page.context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": base,
                },
                {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base},
            ]
        )
        page.goto(f"{base}/papers/{ARXIV_ID}/")
        section = page.locator(f'.guided-reading[data-version="{version.pk}"]')
        expect(section.locator(".guided-reading__source--full")).to_contain_text(texts["full"])
        links = section.locator(".guided-reading__cites a")
        expect(links).to_have_count(len(cited))
        for number, citation in enumerate(cited):
            link = links.nth(number)
            expect(link).to_have_attribute("href", f"{mirror}/{ARXIV_ID}v1#{citation['anchor']}")
            expect(link).to_have_text(f"§{citation['ref']}")
            expect(link).to_have_attribute("title", citation["heading"])  # the markup, as the tooltip's text
        assert HOSTILE in section.locator("dd.guided-reading__problem").inner_text()
        assert section.locator("img, script").count() == 0
        screenshot(page, f"reading-section-links-{language}")
        first_reading_link = links.first.get_attribute("href")

        page.goto(f"{base}/papers/{sorted(FLAKY)[0]}/")
        expect(page.locator(".guided-reading__source--abstract")).to_have_text(texts["abstract"])
        assert page.locator(".guided-reading__source--full").count() == 0

        page.goto(f"{base}{answer_path}")
        answer = page.locator(".ask-answer")
        inline = answer.locator(f'a.citation[data-section="{passage["section"]}"]:not(.citation--section)')
        expect(inline).to_have_count(2)  # in the synthesis and in the point
        for number in range(2):
            expect(inline.nth(number)).to_have_attribute("href", answer_url)
        listed = answer.locator("a.citation--section")
        expect(listed).to_have_count(1)
        expect(listed).to_have_attribute("href", answer_url)
        expect(listed).to_have_text(f"§{passage['section']}")
        expect(listed).to_have_attribute("title", texts["section"])
        assert HOSTILE in answer.inner_text()
        assert answer.locator("img, script").count() == 0
        screenshot(page, f"answer-section-links-{language}")
        assert page.evaluate("typeof window.alert") == "function"  # nothing replaced it; the watch saw no dialog
    watch.assert_clean()

    # Each link lands on its section of arXiv's HTML (a page of its own: arXiv's page asks arXiv for its styles).
    with browser_page(locale="en-US", javascript=False) as (arxiv, _outside):
        arxiv.route(
            "**/*",
            lambda route: route.continue_() if urlsplit(route.request.url).hostname in LOOPBACK else route.abort(),
        )
        for url in (first_reading_link, answer_url):
            arxiv.goto(url)
            # LaTeXML's section (or subsection) element bears the anchor.
            expect(arxiv.locator(f'section[id="{urlsplit(url).fragment}"]')).to_be_attached()
