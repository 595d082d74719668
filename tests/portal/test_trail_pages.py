"""`/trail/`: cards with why they came, highlighted query terms, filters,
keyset pages, the reader's marks and undo, "not this person", opening a
paper, owner-only ids, a bounded number of queries; the account strip and the
navigation's unread count."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.follows.models import Follow
from accounts.follows.services import follow_create
from accounts.models import User
from accounts.trail.matching import match_versions
from accounts.trail.services import trail_dismiss, trail_mark_read
from harvest.models import Paper
from portal.templatetags.portal import highlight
from tests import factories as f
from tests.accounts.conftest import card_of
from tests.accounts.conftest import cards as trail_cards

pytestmark = pytest.mark.django_db


def harvest(*records, hours_ago: float) -> None:
    """Store records as a harvest `hours_ago` and match their new versions, as
    the task after a page does (the trail reads the matches at once)."""
    result = f.store(*records, at=timezone.now() - timedelta(hours=hours_ago))
    match_versions(version_ids=result.created_version_ids)


def unread_arxiv_ids(reader) -> list[str]:
    """The arxiv ids of the reader's unread cards, newest first."""
    unread = [card.paper_id for card in trail_cards(reader) if card.unread]
    arxiv_ids = dict(Paper.objects.filter(pk__in=unread).values_list("pk", "arxiv_id"))
    return [arxiv_ids[paper_id] for paper_id in unread]


def follow(reader, kind, value, name) -> Follow:
    return follow_create(user=reader, kind=kind, value=value, name=name)


@pytest.fixture
def trail(reader) -> dict[str, Follow]:
    follows = {
        "cl": follow(reader, "category", {"code": "cs.CL"}, "Language"),
        "ada": follow(reader, "author", {"author": "Ada Lovelace"}, "Ada"),
        "diffusion": follow(reader, "query", {"q": "diffusion"}, "Diffusion"),
    }
    first = {
        "title": "Diffusion <b>models</b> for text",
        "abstract": "We study diffusion & more.",
        "categories": ["cs.CL"],
        "authors": ["Ada Lovelace"],
    }
    harvest(f.record("2611.00001", **first), hours_ago=30)
    # Read before its revision arrives: the card comes back as a revision.
    trail_mark_read(user=reader, item_ids=[card.paper_id for card in trail_cards(reader)])
    harvest(f.record("2611.00002", categories=["cs.RO"], authors=["Ada Lovelace"]), hours_ago=20)
    harvest(f.record("2611.00003", categories=["cs.LG", "cs.CL"], authors=["Grace Hopper"]), hours_ago=10)
    harvest(f.record("2611.00001", versions=2, **first), hours_ago=2)
    return follows


def cards(response) -> list[str]:
    html = response.content.decode()
    return [chunk.split('"', 1)[0] for chunk in html.split('<article class="paper-card" data-arxiv-id="')[1:]]


def test_the_trail_shows_each_card_with_why_it_came(reader_client, trail):
    response = reader_client.get("/trail/")
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    assert cards(response) == ["2611.00001", "2611.00003", "2611.00002"]
    html = response.content.decode()
    assert "修订 · v2" in html and 'href="/papers/2611.00001/#v2" data-what-changed' in html
    assert "新论文 · v1" in html and html.count("data-unread") == 3
    listing = html.split('id="main"', 1)[1].split("<footer", 1)[0]
    assert listing.count("北京时间") == 1 and "时间均为北京时间。" in listing  # once for the three cards' times
    assert "类别 cs.CL\n" in html and "类别 cs.CL（交叉列出）" in html  # 2611.00003 lists cs.CL second
    assert "作者“Ada Lovelace”（写法 ada lovelace）" in html
    # Query terms are marked in the escaped title and abstract, never inside markup.
    assert "<mark>Diffusion</mark> &lt;b&gt;models&lt;/b&gt; for text" in html
    assert "We study <mark>diffusion</mark> &amp; more." in html
    assert "<b>models</b>" not in html
    assert 'aria-label="3 条未读">3</span>' in html  # the navigation's count


def test_filters_by_follow_kind_and_unread(reader_client, trail, reader):
    assert cards(reader_client.get(f"/trail/?follow={trail['diffusion'].pk}")) == ["2611.00001"]
    assert cards(reader_client.get(f"/trail/?follow={trail['ada'].pk}")) == ["2611.00001", "2611.00002"]
    assert cards(reader_client.get("/trail/?kind=new")) == ["2611.00003", "2611.00002"]
    assert cards(reader_client.get("/trail/?kind=revision")) == ["2611.00001"]
    item = card_of(reader, "2611.00003")
    reader_client.post(f"/trail/{item.paper_id}/read/")
    assert cards(reader_client.get("/trail/?unread=1")) == ["2611.00001", "2611.00002"]
    bad = reader_client.get("/trail/?kind=old")
    assert bad.status_code == 400 and "类型：" in bad.content.decode()  # as the filter labels it
    for query, named in (("follow=x", "关注："), ("cursor=!!", "翻页："), ("order=top", "排序：")):
        refused = reader_client.get(f"/trail/?{query}")
        assert refused.status_code == 400 and named in refused.content.decode(), query
    stranger = Follow.objects.create(user=User.objects.create_user("x"), kind="query", name="n", value={})
    assert reader_client.get(f"/trail/?follow={stranger.pk}").status_code == 404


def test_pages_are_keyset_and_queries_do_not_grow_with_the_page(reader_client, reader, django_assert_max_num_queries):
    follow(reader, "category", {"code": "cs.LG"}, "Learning")
    for n in range(25):
        harvest(f.record(f"2611.{n:05d}"), hours_ago=50 - n)
    # Session, user, the reader's trail order (its profile), follows, the
    # reader's follows, exclusions and mark (once a request), the matches and card states of at most two windows and the
    # papers' other versions, papers, versions, reasons, picks, latest
    # versions, readings, the reader's records of the cards, the navigation's
    # count (its stamp, and its statement when no stored count fits), the
    # reader's ranking (none yet) and their lab groups (the switch between
    # trails): bounded alike for 20 cards or 3.
    with django_assert_max_num_queries(25):
        first = reader_client.get("/trail/")
    assert len(cards(first)) == 20 and cards(first)[0] == "2611.00024"
    next_link = first.content.decode().split('rel="next"')[0].rsplit('href="', 1)[1].split('"')[0]
    second = reader_client.get("/trail/" + next_link.replace("&amp;", "&"))
    assert cards(second) == [f"2611.{n:05d}" for n in range(4, -1, -1)]
    # Three cards left: the other 22 dismissed (out of the trail).
    for paper_id in Paper.objects.filter(arxiv_id__in=[f"2611.{n:05d}" for n in range(22)]).values_list(
        "pk", flat=True
    ):
        assert trail_dismiss(user=reader, item_id=paper_id)
    with django_assert_max_num_queries(25):
        assert len(cards(reader_client.get("/trail/"))) == 3


def test_marks_read_up_to_dismiss_and_undo(reader_client, trail, reader):
    middle = card_of(reader, "2611.00003")
    page = reader_client.get("/trail/").content.decode()
    up_to = page.split(f'data-item="{middle.paper_id}"')[1].split('name="up_to" value="')[1].split('"')[0]
    response = reader_client.post("/trail/read/", {"up_to": up_to, "next": "/trail/?unread=1"})
    # Back at the card the reader was on (the anchor; htmx swaps the cards in place).
    assert response.status_code == 302 and response["Location"] == f"/trail/?unread=1#t{middle.paper_id}"
    assert unread_arxiv_ids(reader) == ["2611.00001"]
    assert reader_client.post("/trail/read/", {"up_to": "yesterday"}).status_code == 302
    refused = reader_client.get("/trail/").content.decode()
    assert "到此处全部标为已读：请给出足迹卡片的时间。" in refused and "up_to:" not in refused
    order = reader_client.post("/trail/order/", {"order": "top"}, follow=True).content.decode()
    assert "排序：请使用 for_you 或 newest。" in order
    assert reader_client.post("/trail/read/", {"next": "https://elsewhere.example/"})["Location"] == "/trail/"
    # "Not interested" goes back to the same view, its undo where the card was:
    # before the card that followed it (the form names it), or after the last.
    first, last = card_of(reader, "2611.00001"), card_of(reader, "2611.00002")
    page = reader_client.get("/trail/?order=newest").content.decode()
    form = page.split(f'action="/trail/{middle.paper_id}/dismiss/"')[1].split("</form>")[0]
    assert 'name="next" value="/trail/?order=newest"' in form and f'name="at" value="{last.paper_id}"' in form
    dismissed = reader_client.post(
        f"/trail/{middle.paper_id}/dismiss/", {"next": "/trail/?order=newest&undo=1", "at": last.paper_id}
    )
    assert dismissed["Location"] == f"/trail/?order=newest&undo={middle.paper_id}&at={last.paper_id}#undo"
    page = reader_client.get(dismissed["Location"])
    html = page.content.decode()
    assert cards(page) == ["2611.00001", "2611.00002"] and "已移出足迹" in html
    assert html.index(f'id="t{first.paper_id}"') < html.index('id="undo"') < html.index(f'id="t{last.paper_id}"')
    undo_next = html.split('id="undo"')[1].split('name="next" value="')[1].split('"')[0]
    assert undo_next == "/trail/?order=newest"
    undone = reader_client.post(f"/trail/{middle.paper_id}/undismiss/", {"next": undo_next})
    assert undone["Location"] == f"/trail/?order=newest#t{middle.paper_id}"
    assert cards(reader_client.get("/trail/")) == ["2611.00001", "2611.00003", "2611.00002"]
    # The last card has none after it: its undo follows the cards; a foreign `next` is the trail.
    dismissed = reader_client.post(f"/trail/{last.paper_id}/dismiss/", {"next": "https://elsewhere.example/"})
    assert dismissed["Location"] == f"/trail/?undo={last.paper_id}#undo"
    html = reader_client.get(dismissed["Location"]).content.decode()
    assert html.index(f'id="t{middle.paper_id}"') < html.index('id="undo"') < html.index('class="pager"')


def test_read_up_to_here_on_cards_of_one_harvest_marks_this_card_and_those_after_it(reader_client, reader):
    follow(reader, "category", {"code": "cs.LG"}, "Learning")
    harvest(*(f.record(f"2611.{n:05d}") for n in range(8)), hours_ago=1)  # eight cards, one time
    page = reader_client.get("/trail/")
    listed = cards(page)
    third = card_of(reader, listed[2])
    up_to = (
        page.content.decode().split(f'data-item="{third.paper_id}"')[1].split('name="up_to" value="')[1].split('"')[0]
    )
    response = reader_client.post("/trail/read/", {"up_to": up_to}, follow=True)
    assert "已将 6 项标为已读。" in response.content.decode()
    assert set(unread_arxiv_ids(reader)) == set(listed[:2])


def test_not_this_person_takes_the_author_reason_off_the_card(reader_client, trail, reader):
    item = card_of(reader, "2611.00002")
    assert (
        reader_client.post(f"/trail/{item.paper_id}/not-this-person/{trail['cl'].pk}/").status_code == 404
    )  # not an author follow
    assert reader_client.post(f"/trail/{item.paper_id}/not-this-person/{trail['ada'].pk}/").status_code == 302
    assert cards(reader_client.get("/trail/")) == ["2611.00001", "2611.00003"]
    assert Follow.objects.get(pk=trail["ada"].pk).rejected_paper_ids == [item.paper_id]


def test_opening_a_paper_goes_to_its_page_whose_post_marks_its_card_read(reader_client, trail, reader):
    item = card_of(reader, "2611.00001")
    response = reader_client.get(f"/trail/{item.paper_id}/open/")
    assert response.status_code == 302 and response["Location"] == "/papers/2611.00001/#v2"
    assert card_of(reader, "2611.00001").unread  # the GET only redirects
    page = reader_client.get("/papers/2611.00001/").content.decode()
    assert 'hx-post="/papers/2611.00001/opened/" hx-trigger="load"' in page
    assert 'name="version" value="2"' in page
    opened = reader_client.post("/papers/2611.00001/opened/", {"version": "2"})
    assert opened.status_code == 200
    item = card_of(reader, "2611.00001")
    assert not item.unread
    # The navigation's trail link comes back with the count now (two unread cards left).
    assert 'id="nav-trail" href="/trail/" hx-swap-oob="true">足迹' in opened.content.decode()
    assert '<span class="nav-count"' in opened.content.decode() and ">2</span>" in opened.content.decode()


def test_every_item_route_is_the_owners_only(reader_client, other_client, trail, reader):
    item = card_of(reader, "2611.00001")
    assert other_client.get(f"/trail/{item.paper_id}/open/").status_code == 404
    for action in ("read", "dismiss", "undismiss", f"not-this-person/{trail['ada'].pk}"):
        assert other_client.post(f"/trail/{item.paper_id}/{action}/").status_code == 404, action
    item = card_of(reader, "2611.00001")
    assert item.unread and not item.dismissed
    assert other_client.post("/trail/read/", {"up_to": timezone.now().isoformat()}).status_code == 302
    item = card_of(reader, "2611.00001")
    assert item.unread
    assert cards(other_client.get("/trail/")) == []
    assert Client().get("/trail/").status_code == 302


def test_the_account_strip_counts_follows_and_unread_or_invites_to_sign_in(reader_client, trail):
    html = reader_client.get("/me/strip/").content.decode()
    assert 'data-strip="follows"><strong>3</strong>' in html
    assert 'href="/trail/?unread=1" data-strip="unread"><strong>3</strong>' in html
    assert 'href="/records/" data-strip="saved"><strong>0</strong>已保存论文' in html
    assert 'id="nav-trail" href="/trail/" hx-swap-oob="true">足迹' in html
    anonymous = Client().get("/me/strip/")
    text = anonymous.content.decode()
    assert 'href="/login/?next=/"' in text and 'href="/accounts/signup/"' in text and "nav-trail" not in text
    assert anonymous["Cache-Control"].startswith("max-age=0") and "Cookie" in anonymous["Vary"]


def test_the_overview_is_the_same_for_everyone_and_loads_the_strip(reader_client, trail):
    signed_in = reader_client.get("/").content.decode()
    signed_out = Client().get("/").content.decode()
    for html in (signed_in, signed_out):
        assert 'hx-get="/me/strip/" hx-trigger="load"' in html and "正在读取账号与研究记录…" in html
        assert '<span id="nav-trail"></span>' in html and "3 条未读" not in html


def test_the_navigation_and_profile_link_to_the_trail(reader_client, trail, reader):
    assert (
        'id="nav-trail" href="/trail/">足迹 <span class="nav-count"' in reader_client.get("/papers/").content.decode()
    )
    assert "nav-trail" not in Client().get("/papers/").content.decode()
    me = reader_client.get("/me/").content.decode()
    assert 'href="/follows/">我的关注</a>' in me and 'href="/trail/">我的足迹</a>' in me
    # A signed-in reader's pages are in the language saved with the account.
    User.objects.filter(pk=reader.pk).update(language="en")
    english = reader_client.get("/trail/").content.decode()
    assert "Revision · v2" in english and "Mark all as read up to here" in english and ">Trail <span" in english


def test_highlight_escapes_every_piece_and_marks_whole_words():
    assert highlight("Studies of <amp> & amp", ["studi", "amp"]) == (
        "<mark>Studies</mark> of &lt;<mark>amp</mark>&gt; &amp; <mark>amp</mark>"
    )
    assert highlight("<i>x</i>", []) == "&lt;i&gt;x&lt;/i&gt;"
    assert highlight("a study", ["studi"]) == "a <mark>study</mark>"
