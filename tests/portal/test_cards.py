"""The paper card (templates/portal/_paper_card.html, through portal.templatetags.portal.paper_card):
what it shows for each kind of paper, in both languages, with every harvested
value escaped."""

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone, translation

from harvest.announcements import announcement_store
from harvest.source_records import FeedAnnouncement, ListedItem, VersionRecord
from portal.selectors import briefing_cards, paper_cards
from portal.stats.windows import current_window
from portal.templatetags.portal import paper_card
from tests import factories as f

pytestmark = pytest.mark.django_db


def card_of(arxiv_id: str) -> str:
    return str(paper_card({}, paper_cards([f.paper(arxiv_id)])[0]))


def test_a_new_paper_card_links_its_authors_categories_and_arxiv():
    f.store(
        f.record("2611.00001", title="Graphs", abstract="Line one.\nLine two.", categories=["cs.DS", "math.CO"]),
        at=timezone.now(),
    )
    with translation.override("zh-hans"):
        html = card_of("2611.00001")
    assert html.startswith('\n<article class="paper-card" data-arxiv-id="2611.00001" data-density="compact">')
    assert '<span class="badge">新论文 · v1</span>' in html
    assert '<a href="/papers/2611.00001/">arXiv:2611.00001</a>' in html
    assert '<h3 class="paper-card__title tex"><a href="/papers/2611.00001/">Graphs</a></h3>' in html
    assert (
        '<div class="paper-card__authors"><a href="/papers/?author=Ada%20Lovelace">Ada Lovelace</a>, '
        '<a href="/papers/?author=Alan%20Turing">Alan Turing</a></div>'
    ) in html
    # Compact: one line of the abstract, the whole of it folded in place under a summary.
    assert '<p class="paper-card__line tex" data-line="abstract">Line one. Line two.</p>' in html
    folded = html.split('<details class="paper-card__more">', 1)[1].split("</details>", 1)[0]
    assert "<summary>摘要与 AI 导读</summary>" in folded and '<p class="tex">Line one.<br>Line two.</p>' in folded
    assert (
        '<ul class="categories"><li class="primary"><a href="/papers/?category=cs.DS">cs.DS</a></li>'
        '<li><a href="/papers/?category=math.CO">math.CO</a></li></ul>'
    ) in html
    assert '<a href="https://arxiv.org/abs/2611.00001" rel="noopener noreferrer">' in html
    assert '<a href="https://arxiv.org/pdf/2611.00001" rel="noopener noreferrer">PDF</a>' in html
    assert "badge--ai" not in html and "badge--hf" not in html and "Hugging Face" not in html


def test_a_revised_ai_paper_with_picks_and_many_authors_in_english():
    f.store(
        f.record("2611.00002", versions=3, authors=[f"Author {n}" for n in range(15)], categories=["cs.LG"]),
        at=timezone.now(),
    )
    hf = f.source("hf_daily")
    f.pick(f.paper("2611.00002"), hf, upvotes=42, url="https://huggingface.co/papers/2611.00002")
    with translation.override("en"):
        html = card_of("2611.00002")
    assert '<span class="badge badge--revision">Revision · v3</span>' in html
    assert '<span class="badge badge--ai">AI-related</span>' in html
    assert (
        '<a class="badge badge--hf" href="https://huggingface.co/papers/2611.00002" rel="noopener noreferrer nofollow" '
        'data-badge="upvotes">HF pick ▲42</a>'
    ) in html
    # Three authors, then "et al." that opens the other twelve in place.
    shown, folded = html.split('<details class="authors-more">', 1)
    assert shown.count("?author=") == 3 and "<summary>et al. (12 more)</summary>" in folded
    assert folded.split("</details>", 1)[0].count("?author=") == 12
    assert (
        '<a href="https://huggingface.co/papers/2611.00002" rel="noopener noreferrer nofollow">Hugging Face</a>' in html
    )
    assert "Original abstract" in html and "arXiv abstract" in html


def test_a_reader_who_chose_full_cards_sees_every_abstract_open_and_twelve_authors(rf, django_user_model):
    f.store(f.record("2611.00005", authors=[f"Author {n}" for n in range(15)]), at=timezone.now())
    request = rf.get("/")
    request.user = django_user_model.objects.create_user("full", password="x", card_density="full")
    html = str(paper_card({"request": request}, paper_cards([f.paper("2611.00005")])[0]))
    assert 'data-density="full"' in html and '<details class="paper-card__more" open>' in html
    assert html.split('<details class="authors-more">', 1)[0].count("?author=") == 12


def test_a_first_sentence_is_the_compact_line_and_a_reading_takeaway_replaces_it():
    abstract = "We study e.g. the graphs of Fig. 2 and their cuts in depth here. Then we prove more."
    f.store(f.record("2611.00006", abstract=abstract), at=timezone.now())
    html = card_of("2611.00006")
    assert 'data-line="abstract">We study e.g. the graphs of Fig. 2 and their cuts in depth here.</p>' in html
    f.reading(f.version("2611.00006", 1), written_at=timezone.now())
    with translation.override("en"):
        html = card_of("2611.00006")
    assert 'data-line="takeaway">' in html


def test_harvested_values_are_escaped_and_only_http_links_are_kept():
    f.store(
        f.record(
            "2611.00003",
            title='<script>alert("t")</script>',
            abstract="a < b & 'c'",
            authors=['Eve "<b>"'],
            categories=["cs.CR"],
        ),
        at=timezone.now(),
    )
    f.pick(f.paper("2611.00003"), f.source("hf_daily"), url="javascript:alert(1)")
    html = card_of("2611.00003")
    assert "<script>" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;" in html
    assert "a &lt; b &amp; &#x27;c&#x27;" in html
    assert '?author=Eve%20%22%3Cb%3E%22">Eve &quot;&lt;b&gt;&quot;</a>' in html
    assert "javascript:" not in html


def test_a_briefing_card_shows_what_the_window_brought_with_each_reading():
    now = timezone.now().replace(microsecond=0)
    f.store(f.record("2611.00004", versions=1), at=now - timedelta(days=3))
    f.store(f.record("2611.00004", versions=3), at=now - timedelta(hours=1))
    for number in (2, 3):
        f.reading(f.version("2611.00004", number), written_at=now - timedelta(minutes=30))
    window = current_window(now)
    revisions = briefing_cards(kind="revisions", window=window, papers=[f.paper("2611.00004")])
    html = str(paper_card({}, revisions[0]))
    assert '<a href="/papers/2611.00004/#v2">v2</a>, <a href="/papers/2611.00004/#v3">v3</a></p>' in html
    readings = briefing_cards(kind="readings", window=window, papers=[f.paper("2611.00004")])
    html = str(paper_card({}, readings[0]))
    assert re.findall(r'<p class="note">v(\d)</p>\s*<section class="guided-reading"', html) == ["2", "3"]


def test_pages_show_one_card_per_paper(client):
    f.store(*(f.record(f"2611.{n:05d}") for n in range(10, 13)), at=timezone.now())
    for url in ("/", "/papers/"):
        page = client.get(url).content.decode()
        assert page.count('<article class="paper-card"') == 3


def announce(arxiv_id: str, version: int, day: date) -> None:
    """The feed's listing of one version, stored as the feed source stores it
    (no submission date: the feed has none)."""
    listed = f.record(arxiv_id, versions=version)
    listed.versions = [VersionRecord(version)]
    announcement_store(
        records=[listed], announcement=FeedAnnouncement("cs", day, [ListedItem(arxiv_id, version, "replace")])
    )


def test_a_card_whose_latest_version_has_only_an_announcement_day_says_announced():
    f.store(f.record("2611.00005", versions=1), at=timezone.now() - timedelta(days=3))
    f.store(
        f.record("2611.00006", first_submitted=datetime(2026, 11, 1, tzinfo=UTC)), at=timezone.now() - timedelta(days=3)
    )
    announce("2611.00005", 2, date(2026, 11, 24))
    with translation.override("zh-hans"):
        announced, dated = card_of("2611.00005"), card_of("2611.00006")
    assert "公告于 2026-11-24 · " in announced and "更新 " not in announced
    assert "更新 2026-11-01 · " in dated and "公告于" not in dated
    with translation.override("en"):
        assert "announced 2026-11-24 · " in card_of("2611.00005")
