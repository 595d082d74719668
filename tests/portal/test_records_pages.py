"""Research records in the pages: the controls on every card (one query for a
signed-in reader, a sign-in link for a visitor), saving through htmx or a
plain form, the paper page's own record and note, and /records/ with its
filters, counts, bulk actions and tag editing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from accounts.records.models import Record, Tag
from accounts.records.services import record_save
from accounts.trail.matching import match_versions
from harvest.models import Paper, Version
from tests import factories as f
from tests.accounts.conftest import card_of
from tests.accounts.conftest import cards as trail_cards
from tests.portal.record_filters import BAD_FILTERS

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def library(db):
    at = timezone.now() - timedelta(days=2)
    f.store(
        *(f.record(f"2611.{n:05d}", title=f"Paper {n}", categories=["cs.LG"]) for n in range(1, 24)),
        f.record("2611.30000", title="Sparse attention", abstract="Long documents.", categories=["cs.CL"]),
        at=at,
    )


def paper(arxiv_id: str) -> Paper:
    return Paper.objects.get(arxiv_id=arxiv_id)


def test_a_visitor_sees_a_sign_in_link_and_no_form(library):
    html = Client().get("/papers/").content.decode()
    assert html.count("data-record-sign-in") == 20 and "record_save" not in html
    assert 'href="/accounts/login/?next=/papers/"' in html


def test_cards_show_the_readers_own_records_in_one_query(reader_client, reader, library, django_assert_max_num_queries):
    record_save(user=reader, paper=paper("2611.00023"), state="reading", tags=["graphs", "RL"])
    other = User.objects.create_user("other")
    record_save(user=other, paper=paper("2611.00022"), tags=["secret-tag"])
    reader_client.get("/papers/")
    # The library's own queries (7, tests/portal/test_library.py), the session
    # and user, one for the page's records, and the navigation's unread count
    # (the reader's follows, exclusions and mark, their matches and states).
    with django_assert_max_num_queries(12):
        html = reader_client.get("/papers/").content.decode()
    assert html.count('data-record="saved"') == 1 and 'data-state="reading"' in html
    assert 'value="RL, graphs"' in html and "secret-tag" not in html
    assert html.count('data-action="save"') == 19


def test_saving_through_htmx_answers_the_controls_and_keeps_their_ids(reader_client, reader, library):
    pk = paper("2611.00001").pk
    url = reverse("portal:record_save", args=["2611.00001"])
    html = reader_client.post(url, {"action": "save", "next": "/papers/"}, **HX).content.decode()
    assert html.startswith(f'<div class="record-controls" id="record-{pk}" data-record="saved"')
    assert f'id="record-{pk}-toggle" data-action="remove"' in html  # the focused button's id survives
    html = reader_client.post(
        url, {"state": "read", "tags": "Graphs\uff0crl; RL\u3001图神经网络", "next": "/papers/"}, **HX
    ).content.decode()
    saved = Record.objects.get(user=reader)
    assert saved.state == "read"
    assert sorted(Tag.objects.values_list("name", flat=True)) == ["Graphs", "rl", "图神经网络"]
    assert 'value="Graphs, rl, 图神经网络"' in html
    bad = reader_client.post(url, {"state": "skimmed"}, **HX)
    assert bad.status_code == 200 and "阅读状态：请使用 to_read、reading 或 read。" in bad.content.decode()
    long_note = reader_client.post(url, {"action": "save", "note": "x" * 50_001}, **HX).content.decode()
    assert "私人笔记（Markdown，TeX 写在 $…$ 中）：" in long_note and "note:" not in long_note
    html = reader_client.post(url, {"action": "remove"}, **HX).content.decode()
    assert f'id="record-{pk}-toggle" data-action="save"' in html and not Record.objects.exists()


def test_a_plain_form_post_redirects_back_and_anonymous_is_sent_to_sign_in(reader_client, library):
    url = reverse("portal:record_save", args=["2611.00001"])
    response = reader_client.post(url, {"action": "save", "next": "/papers/?q=x"})
    assert response.status_code == 302 and response.url == "/papers/?q=x"
    assert reader_client.post(url, {"action": "save", "next": "https://evil.example/"}).url == "/papers/2611.00001/"
    assert Client().post(url, {"action": "save"}).status_code == 302 and Record.objects.count() == 1
    assert reader_client.post(reverse("portal:record_save", args=["2611.99999"]), {"action": "save"}).status_code == 404


def test_the_paper_page_shows_the_owners_record_and_note_and_nobody_elses(reader_client, reader, library):
    record_save(user=reader, paper=paper("2611.30000"), tags=["mine"], note="**key** idea $x_1$ <script>x</script>")
    other = User.objects.create_user("other", password="x")
    record_save(user=other, paper=paper("2611.30000"), tags=["theirs"], note="their private note")
    html = reader_client.get("/papers/2611.30000/").content.decode()
    assert "<strong>key</strong> idea $x_1$ &lt;script&gt;" in html and 'class="note-rendered tex"' in html
    assert "their private note" not in html and "theirs" not in html
    assert Record.objects.get(user=reader).last_read_version is None  # the GET writes nothing
    reader_client.post("/papers/2611.30000/opened/", {"version": "1"})  # the page's own POST once loaded
    assert Record.objects.get(user=reader).last_read_version == 1
    # Opened but still "to read": no "you last read" until the reader says they read it.
    html = reader_client.get("/papers/2611.30000/").content.decode()
    assert "data-last-read" not in html and "你上次读的是" not in html
    Record.objects.filter(user=reader).update(state="reading")
    assert 'data-last-read="1"' in reader_client.get("/papers/2611.30000/").content.decode()
    visitor = Client().get("/papers/2611.30000/").content.decode()
    assert "data-record-sign-in" in visitor and "idea" not in visitor


def test_the_paper_page_shows_what_changed_since_the_version_read_then_clears_the_trail_card(
    reader_client, reader, library
):
    record_save(user=reader, paper=paper("2611.30000"))
    reader_client.post("/papers/2611.30000/opened/", {"version": "1"})
    f.store(
        f.record("2611.30000", title="Sparse attention, revised", versions=2, categories=["cs.CL"]), at=timezone.now()
    )
    match_versions(version_ids=list(Version.objects.filter(number=2).values_list("id", flat=True)))
    (card,) = trail_cards(reader)
    trail = reader_client.get("/trail/").content.decode()
    assert "修订 · v2" in trail and 'data-reason="record"' in trail and "?since=1#since-read" in trail
    html = reader_client.get("/papers/2611.30000/").content.decode()
    assert 'id="since-read" data-since="1"' in html and "revised</ins>" in html.split('id="since-read"')[1]
    card = card_of(reader, "2611.30000")
    assert card.unread and Record.objects.get(user=reader).last_read_version == 1  # the GET writes nothing
    assert reader_client.post("/papers/2611.30000/opened/", {"version": "2"}).status_code == 200
    card = card_of(reader, "2611.30000")
    assert not card.unread and Record.objects.get(user=reader).last_read_version == 2
    assert 'id="since-read"' not in reader_client.get("/papers/2611.30000/").content.decode()


def entries(response) -> list[str]:
    return re.findall(
        r'<article class="record-item paper-card" data-record-id="\d+" data-arxiv-id="([^"]+)"',
        response.content.decode(),
    )


def test_records_page_filters_sorts_counts_and_pages(reader_client, reader, library):
    for n in range(1, 24):
        record_save(user=reader, paper=paper(f"2611.{n:05d}"), tags=["odd"] if n % 2 else [])
    record_save(user=reader, paper=paper("2611.30000"), state="read", note="compare with Longformer", tags=["nlp"])
    first = reader_client.get("/records/")
    html = first.content.decode()
    assert len(entries(first)) == 20 and entries(first)[0] == "2611.30000"
    assert (
        'data-state-count="to_read"><strong>23</strong>' in html
        and 'data-state-count="read"><strong>1</strong>' in html
    )
    assert 'data-tag-count="odd">odd <span class="muted">12</span>' in html
    assert len(entries(reader_client.get("/records/?page=2"))) == 4
    assert entries(reader_client.get("/records/?tag=NLP")) == ["2611.30000"]
    assert entries(reader_client.get("/records/?state=read")) == ["2611.30000"]
    assert entries(reader_client.get("/records/?category=cs.CL")) == ["2611.30000"]
    assert entries(reader_client.get("/records/?q=longformer")) == ["2611.30000"]
    assert entries(reader_client.get("/records/?sort=title&size=20"))[0] == "2611.00001"
    labels = {"tag": "标签", "state": "阅读状态", "sort": "排序", "page": "翻页", "category": "类别"}
    labels["q"] = "搜索我的笔记、标题和摘要"
    for query, field in BAD_FILTERS:
        bad = reader_client.get(f"/records/?{query}")
        assert bad.status_code == 400 and f"{labels[field]}：" in bad.content.decode()  # as the form labels it
    assert Client().get("/records/").status_code == 302


def test_bulk_actions_change_the_selection_of_the_owners_records_only(reader_client, reader, library):
    mine = [record_save(user=reader, paper=paper(f"2611.{n:05d}"))[0].pk for n in (1, 2, 3)]
    other = User.objects.create_user("other")
    theirs = record_save(user=other, paper=paper("2611.00001"))[0].pk
    reader_client.post("/records/bulk/", {"bulk": "state", "state": "reading", "record": [*mine[:2], theirs]})
    assert set(Record.objects.filter(state="reading").values_list("pk", flat=True)) == set(mine[:2])
    reader_client.post("/records/bulk/", {"bulk": "tag", "tag": "batch", "record": [mine[2], theirs]})
    assert list(Tag.objects.get(name="batch").records.values_list("pk", flat=True)) == [mine[2]]
    reader_client.post("/records/bulk/", {"bulk": "remove", "record": [mine[0], theirs]})
    assert Record.objects.filter(pk=theirs).exists() and not Record.objects.filter(pk=mine[0]).exists()
    response = reader_client.post("/records/bulk/", {"bulk": "state", "state": "x", "record": [mine[1]]}, follow=True)
    # Each refusal names the field as the bulk form labels it, never the parameter.
    assert "状态：请使用 to_read、reading 或 read。" in response.content.decode()
    assert "state:" not in response.content.decode()
    for post, named in (
        ({"bulk": "tag", "tag": "", "record": [mine[1]]}, "标签：请给出标签名"),
        ({"bulk": "archive", "record": [mine[1]]}, "操作："),
        ({"bulk": "remove"}, "选择：请至少选择一篇论文"),
    ):
        assert named in reader_client.post("/records/bulk/", post, follow=True).content.decode()


def test_tags_are_renamed_merged_and_deleted_from_the_records_page(reader_client, reader, library):
    record_save(user=reader, paper=paper("2611.00001"), tags=["rl"])
    record_save(user=reader, paper=paper("2611.00002"), tags=["reinforcement"])
    rl, reinforcement = Tag.objects.get(name="rl"), Tag.objects.get(name="reinforcement")
    reader_client.post("/records/tags/", {"tag": rl.pk, "action": "rename", "name": "RL"})
    clash = reader_client.post(
        "/records/tags/", {"tag": rl.pk, "action": "rename", "name": "reinforcement"}, follow=True
    )
    assert "新名称：你已有同名标签" in clash.content.decode()
    reader_client.post("/records/tags/", {"tag": reinforcement.pk, "action": "merge", "into": rl.pk})
    assert list(Tag.objects.values_list("name", flat=True)) == ["RL"] and rl.records.count() == 2
    other = User.objects.create_user("other", password="x")
    stranger = Client()
    stranger.force_login(other)
    for action in ("rename", "merge", "delete"):
        body = {"tag": rl.pk, "action": action, "name": "taken", "into": rl.pk}
        assert stranger.post("/records/tags/", body).status_code == 404
    assert stranger.post("/records/tags/", {"tag": "x", "action": "delete"}).status_code == 404
    reader_client.post("/records/tags/", {"tag": rl.pk, "action": "delete"})
    assert not Tag.objects.exists() and Record.objects.count() == 2


def test_the_strip_and_the_account_page_lead_to_the_record(reader_client, reader, library):
    record_save(user=reader, paper=paper("2611.00001"))
    assert 'href="/records/" data-strip="saved"><strong>1</strong>' in reader_client.get("/me/strip/").content.decode()
    assert 'href="/records/" data-records-link' in reader_client.get("/me/").content.decode()
    # Export and import of the record are reachable from the record and the account page.
    for page in ("/records/", "/me/"):
        html = reader_client.get(page).content.decode()
        assert 'href="/records/export/" data-records-export' in html, page
        assert 'href="/records/import/" data-records-import' in html, page


def test_the_admin_lists_records_and_tags(library):
    root = User.objects.create_superuser("root", "", "a long admin password")
    record_save(user=root, paper=paper("2611.00001"), tags=["admin-tag"])
    admin = Client()
    admin.force_login(root)
    assert "2611.00001" in admin.get(reverse("admin:accounts_record_changelist")).content.decode()
    assert "admin-tag" in admin.get(reverse("admin:accounts_tag_changelist")).content.decode()
