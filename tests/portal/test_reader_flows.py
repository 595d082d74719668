"""Flows that respect the reader, on the pages: marks on the trail return to
the card (and the page swaps the cards in place), the whole trail can be
read at once, the empty trail and the first sign-in lead to a follow, the
navigation has 关注, the author form waits for a name and a topic's
threshold is said in words with its effect."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.utils import translation

from accounts.models import User
from harvest.embeddings.services import embed_papers
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests import factories as f
from tests.accounts.conftest import ago, card_of
from tests.accounts.follows.test_topic_follows import PRIVACY, collection_records
from tests.portal.test_trail_pages import follow, harvest, unread_arxiv_ids

pytestmark = pytest.mark.django_db
PASSWORD = "a long and careful passphrase"


@pytest.fixture
def five_cards(reader) -> list[str]:
    follow(reader, "category", {"code": "cs.LG"}, "Learning")
    for n in range(5):
        harvest(f.record(f"2611.{n:05d}", title=f"Paper {n}", categories=["cs.LG"]), hours_ago=10 - n)
    return [f"2611.{n:05d}" for n in range(5)]


def test_marking_one_card_read_returns_to_that_card(reader_client, reader, five_cards):
    item = card_of(reader, "2611.00002")
    response = reader_client.post(f"/trail/{item.paper_id}/read/", {"next": "/trail/?kind=new"})
    assert response.status_code == 302 and response["Location"] == f"/trail/?kind=new#t{item.paper_id}"
    assert "2611.00002" not in unread_arxiv_ids(reader)
    # Another site's address is never followed: the trail, at the card.
    elsewhere = reader_client.post(f"/trail/{item.paper_id}/read/", {"next": "https://elsewhere.example/"})
    assert elsewhere["Location"] == f"/trail/#t{item.paper_id}"


def test_the_marks_swap_the_cards_in_place_and_the_unread_count_with_them(reader_client, five_cards):
    page = reader_client.get("/trail/").content.decode()
    forms = re.findall(r'<form method="post" action="(/trail/[^"]*read/(?:all/)?)"[^>]*>', page)
    swapping = re.findall(
        r'<form method="post" action="(/trail/[^"]*read/(?:all/)?)"[^>]*hx-target="#trail-cards"', page
    )
    # One "mark as read" and one "up to here" a card, and "mark all" above them: all swap in place.
    assert len(forms) == 2 * 5 + 1 and swapping == forms
    assert 'hx-select-oob="#trail-messages,#nav-trail"' in page
    assert page.count('id="trail-cards"') == 1 and page.count('id="trail-messages"') == 1


def test_the_whole_trail_is_read_at_once_and_the_button_needs_no_filter(reader_client, reader, five_cards):
    assert 'data-action="read-all"' not in reader_client.get("/trail/", {"kind": "new"}).content.decode()
    assert 'data-action="read-all"' in reader_client.get("/trail/").content.decode()
    response = reader_client.post("/trail/read/all/", {"next": "/trail/?unread=1"}, follow=True)
    assert response.redirect_chain == [("/trail/?unread=1", 302)]
    assert unread_arxiv_ids(reader) == [] and "已将 5 项标为已读。" in response.content.decode()
    assert reader_client.get("/trail/read/all/").status_code == 405  # a GET writes nothing


def test_an_empty_trail_offers_a_follow_and_the_picks(reader_client, reader):
    page = reader_client.get("/trail/").content.decode()
    assert 'data-next-step="follow"' in page and 'href="/follows/new/"' in page and "新建关注" in page
    assert 'data-next-step="picks"' in page and 'href="/trail/picks/"' in page
    follow(reader, "category", {"code": "cs.LG"}, "Learning")
    page = reader_client.get("/trail/").content.decode()
    assert "再添加一个关注" in page and "下一轮采集后" in page
    # With filters the page says that nothing matches them, not what to follow.
    assert "data-next-step" not in reader_client.get("/trail/", {"kind": "revision"}).content.decode()


def test_the_navigation_has_follows_for_a_signed_in_reader(reader_client, client, five_cards):
    page = reader_client.get("/follows/").content.decode()
    assert '<a id="nav-follows" href="/follows/" aria-current="page">关注</a>' in page
    assert '<a id="nav-follows" href="/follows/">关注</a>' in reader_client.get("/trail/").content.decode()
    # The overview is the same for everyone: its strip brings the link.
    assert '<span id="nav-follows"></span>' in reader_client.get("/").content.decode()
    strip = reader_client.get("/me/strip/").content.decode()
    assert '<a id="nav-follows" href="/follows/" hx-swap-oob="true">关注</a>' in strip
    assert "nav-follows" not in client.get("/papers/").content.decode()
    assert "nav-follows" not in client.get("/me/strip/").content.decode()


def _verified(username: str) -> User:
    user = User.objects.create_user(username, email=f"{username}@example.org", password=PASSWORD)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def _sign_in(login: str, **extra) -> str:
    response = Client().post("/accounts/login/", {"username": login, "password": PASSWORD, **extra})
    assert response.status_code == 302
    return response["Location"]


def test_the_first_sign_in_leads_to_the_follows_and_later_ones_to_the_trail():
    user = _verified("newcomer")
    assert _sign_in("newcomer") == "/follows/"
    assert _sign_in("newcomer", next="/papers/") == "/papers/"  # a `next` wins
    follow(user, "category", {"code": "cs.LG"}, "Learning")
    assert _sign_in("newcomer") == "/trail/"


def test_the_author_form_speaks_only_after_a_name_is_typed(reader_client):
    empty = reader_client.get("/follows/new/", {"kind": "author"}).content.decode()
    assert "data-author-hint" in empty and "输入作者姓名后点" in empty
    assert "没有" not in empty.split('follow-form"')[1].split("</form>")[0]
    assert 'class="candidates' not in empty
    typed = reader_client.get("/follows/new/", {"kind": "author", "author": "Nobody Known"}).content.decode()
    assert "data-author-hint" not in typed and 'class="candidates' in typed


@pytest.mark.parametrize(
    ("threshold", "band", "zh", "en"),
    [
        ("2.75", "broad", "较宽：论文更多，匹配较松", "broad: more papers, looser matches"),
        ("3.5", "balanced", "适中：默认的严格程度", "balanced: the default's strictness"),
        ("5", "strict", "较严：论文更少，只要很接近的", "strict: fewer papers, only close matches"),
    ],
)
def test_a_topic_threshold_is_said_in_words_on_the_form_and_the_list(reader_client, reader, threshold, band, zh, en):
    form = reader_client.get("/follows/new/", {"kind": "topic"}).content.decode()
    assert 'aria-describedby="f-threshold-help"' in form and "1.0 最宽" in form and "6.0 最严" in form
    follow(reader, "topic", {"description": "差分隐私", "threshold": float(threshold)}, "Privacy")
    listed = reader_client.get("/follows/").content.decode()
    assert f'data-threshold-band="{band}">{zh}<' in listed and f"阈值 {float(threshold)}" in listed
    with translation.override("en"):
        reader.language = "en"
        reader.save(update_fields=["language"])
        assert en in reader_client.get("/follows/").content.decode()


def test_a_topic_preview_says_its_threshold_in_words_and_papers_a_week(reader_client):
    paper_upsert_many(records=collection_records(PRIVACY[:3]), now=ago(days=2))
    index_pending_papers()
    embed_papers()
    preview = reader_client.post(
        "/follows/new/", {"kind": "topic", "description": "差分隐私", "threshold": "2.75", "action": "preview"}
    ).content.decode()
    week = re.search(r'data-preview="7"><strong>(\d+)</strong>', preview).group(1)
    effect = re.search(r"<p data-threshold-effect>(.*?)</p>", preview).group(1)
    assert int(week) >= 1
    assert "阈值 2.75：" in effect and "较宽" in effect and f"<strong data-per-week>约 {week} 篇/周</strong>" in effect
    assert "调高则更少、更接近" in effect
    strict = reader_client.post(
        "/follows/new/", {"kind": "topic", "description": "差分隐私", "threshold": "5.5", "action": "preview"}
    ).content.decode()
    assert 'data-threshold-band="strict"' in strict
