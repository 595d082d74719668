"""Compact cards in Chromium: the default library page of 20 real papers
at 1280 px is at most 40 % as tall as with full cards, an abstract opens in
place by mouse and by keyboard, a phone's first screen shows papers with the
filters folded, and nothing goes to the console. The screenshots land in
test-output/screenshots/ (docs/screenshots/ holds the committed ones)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from accounts.models import User
from harvest.source_records import clean_abstract, clean_line
from tests import factories as f
from tests.portal.browser.conftest import browser_page, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
COLLECTION = Path(__file__).parents[2] / "fixtures" / "search_eval" / "papers.jsonl"


# A guided reading's sections run to a sentence or two each (digests/prompts.py asks for that).
READING_TEXT = (
    "本文提出一种新方法\uff0c在公开基准上与多种强基线比较\uff0c并分析了其适用条件与代价\uff1b结论对后续研究有参考价值。"
)


@pytest.fixture
def library():
    """Twenty real papers of the evaluation collection (titles, abstracts,
    categories as recorded), each with a guided reading, as a day's page has."""
    with COLLECTION.open(encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines][:20]
    f.store(
        *(
            f.record(
                f"2611.{n:05d}",
                title=clean_line(paper["title"]),  # as ingest makes it
                abstract=clean_abstract(paper["abstract"]),
                categories=paper["categories"] or ["cs.LG"],
                authors=[f"Author {n}-{k}" for k in range(5)],
            )
            for n, paper in enumerate(papers)
        ),
        at=timezone.now(),
    )
    for n in range(20):
        f.reading(f.version(f"2611.{n:05d}", 1), written_at=timezone.now(), text=READING_TEXT)


def session_of(user: User) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def library_height(page, base: str) -> int:
    page.goto(f"{base}/papers/")
    return page.evaluate("document.documentElement.scrollHeight")


def assert_actions_on_the_last_line(card) -> None:
    """The abstract's summary and the save action share one line, the card's last."""
    summary = card.locator(".paper-card__more > summary").bounding_box()
    save = card.locator("[data-record]").bounding_box()
    bottom = card.bounding_box()
    assert abs(summary["y"] - save["y"]) < summary["height"], (summary, save)
    assert bottom["y"] + bottom["height"] - (save["y"] + save["height"]) < 24, (bottom, save)


def test_compact_cards_are_at_most_two_fifths_as_tall_and_open_in_place(live_server, library):
    base = live_server.url
    full_reader = session_of(User.objects.create_user("full", password="x", card_density="full"))
    with browser_page() as (page, watch):
        compact = library_height(page, base)
        screenshot(page, "library-compact-1280", full_page=False)
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": full_reader, "url": base}])
        full = library_height(page, base)
        print(f"library page at 1280 px: compact {compact} px, full {full} px ({compact / full:.0%})")
        assert compact <= 0.4 * full, (compact, full)
        # At most 40 % of the 11,225 px that the default page's full cards once took.
        assert compact <= 4490, compact
        page.context.clear_cookies()
        page.goto(f"{base}/papers/")
        assert page.locator("article.paper-card").count() == 20
        first = page.locator("article.paper-card").first
        assert_actions_on_the_last_line(first)
        abstract = first.locator(".paper-card__more .abstract")
        assert not abstract.is_visible()
        first.locator(".paper-card__more > summary").click()
        assert abstract.is_visible()
        # By keyboard: the second card's summary takes focus and Enter opens it.
        second = page.locator("article.paper-card").nth(1)
        second.locator(".paper-card__more > summary").focus()
        page.keyboard.press("Enter")
        assert second.locator(".paper-card__more .abstract").is_visible()
        others = second.locator(".authors-more")
        others.locator("summary").focus()
        page.keyboard.press("Enter")
        assert others.locator("a").count() == 2 and others.locator("a").first.is_visible()
    watch.assert_clean()


def test_a_phones_first_screen_shows_papers_with_the_filters_folded(live_server, library):
    with browser_page(viewport={"width": 390, "height": 844}) as (page, watch):
        page.goto(f"{live_server.url}/papers/")
        assert page.locator("details.filters-fold").evaluate("d => d.open") is False
        top = page.locator("article.paper-card").first.bounding_box()["y"]
        assert top < 844 * 0.6, top
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
        screenshot(page, "library-compact-390", full_page=False)
        # A filter in use keeps the form open.
        page.goto(f"{live_server.url}/papers/?category=cs.LG")
        assert page.locator("details.filters-fold").evaluate("d => d.open") is True
    watch.assert_clean()


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize("width", [1280, 390])
def test_a_readers_thumbs_and_save_button_close_the_card(live_server, library, language, width):
    reader = session_of(User.objects.create_user("reader", password="x", language=language))
    with browser_page(viewport={"width": width, "height": 900}) as (page, watch):
        page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": reader, "url": live_server.url}])
        page.goto(f"{live_server.url}/papers/")
        card = page.locator("article.paper-card").first
        save = card.locator("[data-action=save]").bounding_box()
        thumbs = card.locator(".rating-controls").bounding_box()
        bottom = card.bounding_box()
        assert bottom["y"] + bottom["height"] - (save["y"] + save["height"]) < 24, (bottom, save)
        if width == 1280:
            summary = card.locator(".paper-card__more > summary").bounding_box()
            assert abs(summary["y"] + summary["height"] / 2 - (thumbs["y"] + thumbs["height"] / 2)) < 8
            assert abs(thumbs["y"] + thumbs["height"] / 2 - (save["y"] + save["height"] / 2)) < 8
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    watch.assert_clean()
