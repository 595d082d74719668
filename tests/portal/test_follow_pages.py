"""`/follows/`: the list with unread counts, create and edit with a preview,
author variants to tick, exclusions, field-named errors, the follow buttons
on the paper and library pages, and owner-only ids."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.follows import selectors as follow_selectors
from accounts.follows.models import Exclusion, Follow
from accounts.follows.services import follow_create
from accounts.trail.matching import match_versions
from harvest.models import Paper
from tests import factories as f
from tests.accounts.conftest import cards

pytestmark = pytest.mark.django_db


def harvest(*records, days_ago: float) -> None:
    """Store records as a harvest `days_ago` and match their new versions, as
    the task after a page does (the readers' trails show them at once)."""
    result = f.store(*records, at=timezone.now() - timedelta(days=days_ago))
    match_versions(version_ids=result.created_version_ids)


def trail_arxiv_ids(user) -> list[str]:
    """The arxiv ids of the user's trail cards, newest first."""
    shown = [card.paper_id for card in cards(user)]
    arxiv_ids = dict(Paper.objects.filter(pk__in=shown).values_list("pk", "arxiv_id"))
    return [arxiv_ids[paper_id] for paper_id in shown]


def test_the_list_shows_each_follow_with_its_unread_count_and_options(reader_client, reader):
    cl = follow_create(user=reader, kind="category", value={"code": "cs.CL"}, name="Language", delivery="daily")
    follow_create(user=reader, kind="query", value={"q": "diffusion"}, name="Diffusion", muted=True)
    harvest(f.record("2611.00001", categories=["cs.CL"]), f.record("2611.00002", categories=["cs.CL"]), days_ago=1)
    html = reader_client.get("/follows/").content.decode()
    assert "Language" in html and "Diffusion" in html and "<code>cs.CL</code>" in html
    assert f'href="/trail/?follow={cl.pk}" data-unread="2"' in html
    assert "每日摘要" in html and "已静音" in html
    assert reader_client.get("/follows/")["Cache-Control"].startswith("max-age=0")


def test_signed_out_readers_are_sent_to_sign_in():
    response = Client().get("/follows/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


@pytest.mark.parametrize(("language", "more_than"), [("zh-hans", "超过 2"), ("en", "more than 2")])
def test_a_preview_past_the_cap_says_more_than(reader_client, reader, monkeypatch, language, more_than):
    monkeypatch.setattr(follow_selectors, "PREVIEW_COUNT_CAP", 2)
    harvest(*(f.record(f"2611.0000{n}", categories=["cs.CL"]) for n in range(3)), days_ago=2)
    reader.language = language
    reader.save(update_fields=["language"])
    html = reader_client.get("/follows/new/?kind=category&code=cs.CL").content.decode()
    assert f'<span data-preview="7" data-capped><strong>{more_than}</strong>' in html
    assert f'<span data-preview="30" data-capped><strong>{more_than}</strong>' in html


def test_a_prefilled_category_form_previews_then_saves(reader_client, reader):
    harvest(f.record("2611.00001", categories=["cs.CL"], title="Old one"), days_ago=20)
    harvest(f.record("2611.00002", categories=["cs.CL"], title="Recent one"), days_ago=2)
    harvest(f.record("2611.00003", categories=["cs.RO"]), days_ago=2)
    page = reader_client.get("/follows/new/?kind=category&code=cs.CL")
    html = page.content.decode()
    assert page.status_code == 200 and 'value="cs.CL"' in html
    assert '<span data-preview="7"><strong>1</strong>' in html and '<span data-preview="30"><strong>2</strong>' in html
    assert html.index("Recent one") < html.index("Old one")
    data = {"kind": "category", "code": "cs.CL", "name": "Language", "delivery": "weekly"}
    data |= {"include_revisions": "1", "action": "preview"}
    preview = reader_client.post("/follows/new/", data)
    assert preview.status_code == 200 and 'data-preview="7"' in preview.content.decode()
    assert not Follow.objects.exists()
    saved = reader_client.post("/follows/new/", {**data, "action": "save"})
    assert saved.status_code == 302 and saved["Location"] == "/follows/"
    follow = Follow.objects.get(user=reader)
    assert (follow.kind, follow.value, follow.delivery) == ("category", {"code": "cs.CL"}, "weekly")
    assert follow.include_revisions and not follow.include_cross_lists and not follow.muted
    # The back-fill brought the week's paper into the trail.
    assert trail_arxiv_ids(reader) == ["2611.00002"]


def test_the_preview_counts_and_dates_papers_by_arxivs_date_not_when_they_reached_the_library(reader_client, reader):
    harvest(f.record("2611.00001", categories=["cs.CL"], title="Old one"), days_ago=20)
    harvest(f.record("2611.00002", categories=["cs.CL"], title="Recent one"), days_ago=2)
    # An arXiv paper of 2019 a back-fill stored yesterday: not one of the
    # week's or the month's papers, however recently it reached the library.
    harvest(
        f.record(
            "2611.00004",
            categories=["cs.CL"],
            title="Old paper, new here",
            first_submitted=datetime(2019, 1, 1, tzinfo=UTC),
        ),
        days_ago=1,
    )
    html = reader_client.get("/follows/new/?kind=category&code=cs.CL").content.decode()
    assert "Old paper, new here" not in html and html.index("Recent one") < html.index("Old one")
    assert "<strong>1</strong>篇最近 7 天在 arXiv 发布或修订的论文" in html
    assert "<strong>2</strong>篇最近 30 天在 arXiv 发布或修订的论文" in html
    events = html.split('data-event="')[1:]
    dates = [event.split('"', 1)[0] for event in events]
    assert len(dates) == 2 and dates == sorted(dates, reverse=True)
    reader.language = "en"
    reader.save(update_fields=["language"])
    english = reader_client.get("/follows/new/?kind=category&code=cs.CL").content.decode()
    assert "<strong>1</strong>papers published or revised on arXiv in the last 7 days" in english


def test_bad_input_is_refused_naming_the_field(reader_client, reader, settings):
    response = reader_client.post("/follows/new/", {"kind": "category", "code": "cs.XX", "name": "x", "action": "save"})
    html = response.content.decode()
    assert response.status_code == 400 and 'data-field="code"' in html and "cs.XX 不是已知的 arXiv 分类代码" in html
    reader.language = "en"
    reader.save(update_fields=["language"])
    response = reader_client.post("/follows/new/", {"kind": "category", "code": "cs.XX", "name": "x", "action": "save"})
    assert response.status_code == 400 and "cs.XX is not a known arXiv category code" in response.content.decode()
    response = reader_client.post("/follows/new/", {"kind": "query", "q": "the of", "name": "x", "action": "save"})
    assert response.status_code == 400 and 'data-field="q"' in response.content.decode()
    # A name left empty is the value's, as on the API (it was refused before).
    response = reader_client.post("/follows/new/", {"kind": "query", "q": "diffusion", "name": " ", "action": "save"})
    assert response.status_code == 302 and Follow.objects.get(user=reader, kind="query").name == "diffusion"
    Follow.objects.filter(user=reader, kind="query").delete()
    assert reader_client.get("/follows/new/?kind=planets").status_code == 400
    settings.PAPERTRAIL_MAX_FOLLOWS = 1
    follow_create(user=reader, kind="category", value={"code": "cs.CL"}, name="one")
    response = reader_client.post(
        "/follows/new/", {"kind": "category", "code": "cs.LG", "name": "two", "action": "save"}
    )
    assert response.status_code == 400 and 'data-field="follows"' in response.content.decode()
    assert Follow.objects.count() == 1


def test_an_author_follow_offers_the_library_variants_to_tick(reader_client, reader):
    harvest(
        f.record("2611.00001", authors=["Yann LeCun"], categories=["cs.LG"], title="Energy models"),
        f.record("2611.00002", authors=["Y. LeCun"], categories=["cs.CV"]),
        f.record("2611.00003", authors=["Yves Lecun"], categories=["math.OC"]),
        f.record("2611.00004", authors=["Ada Lovelace"]),
        days_ago=3,
    )
    html = reader_client.get("/follows/new/?kind=author&author=Yann+LeCun").content.decode()
    assert html.count('class="candidate"') == 3 and "Ada Lovelace" not in html
    assert 'value="Yann LeCun" checked' in html and 'value="Y. LeCun">' in html
    assert "Energy models" in html and "cs.LG (1)" in html
    data = {"kind": "author", "author": "Yann LeCun", "name": "LeCun", "action": "save"}
    response = reader_client.post(
        "/follows/new/", {**data, "variants": ["Yann LeCun", "Y. LeCun"], "include_revisions": "1"}
    )
    assert response.status_code == 302
    follow = Follow.objects.get()
    assert follow.value["variants"] == ["Yann LeCun", "Y. LeCun"]
    edit = reader_client.get(f"/follows/{follow.pk}/").content.decode()
    assert 'value="Yann LeCun" checked' in edit and 'value="Y. LeCun" checked' in edit
    assert 'value="Yves Lecun">' in edit
    assert set(trail_arxiv_ids(reader)) == {"2611.00001", "2611.00002"}


def test_edit_and_delete_are_for_the_owner_only(reader_client, other_client, reader):
    follow = follow_create(user=reader, kind="query", value={"q": "diffusion"}, name="Diffusion")
    assert reader_client.get(f"/follows/{follow.pk}/").status_code == 200
    assert other_client.get(f"/follows/{follow.pk}/").status_code == 404
    assert other_client.post(f"/follows/{follow.pk}/", {"q": "x", "name": "y"}).status_code == 404
    assert other_client.post(f"/follows/{follow.pk}/delete/").status_code == 404
    edit = {"q": "diffusion policy", "name": "Policies", "delivery": "trail", "muted": "1", "action": "save"}
    assert reader_client.post(f"/follows/{follow.pk}/", edit).status_code == 302
    follow.refresh_from_db()
    assert (follow.name, follow.value, follow.muted, follow.include_revisions) == (
        "Policies",
        {"q": "diffusion policy"},
        True,
        False,
    )
    assert reader_client.get(f"/follows/{follow.pk}/delete/").status_code == 405
    assert reader_client.post(f"/follows/{follow.pk}/delete/").status_code == 302
    assert not Follow.objects.exists()


def test_csrf_is_required(reader):
    reader_client = Client(enforce_csrf_checks=True)
    reader_client.force_login(reader)
    response = reader_client.post("/follows/new/", {"kind": "category", "code": "cs.CL", "name": "x", "action": "save"})
    assert response.status_code == 403 and not Follow.objects.exists()


def test_exclusions_are_added_listed_refused_and_removed(reader_client, other_client, reader):
    follow_create(user=reader, kind="category", value={"code": "cs.CL"}, name="Language")
    harvest(
        f.record("2611.00001", categories=["cs.CL", "cs.RO"]), f.record("2611.00002", categories=["cs.CL"]), days_ago=1
    )
    assert reader_client.post("/follows/exclusions/", {"kind": "category", "value": "cs.RO"}).status_code == 302
    assert trail_arxiv_ids(reader) == ["2611.00002"]
    assert "<code>cs.RO</code>" in reader_client.get("/follows/").content.decode()
    again = reader_client.post("/follows/exclusions/", {"kind": "category", "value": "cs.RO"})
    assert again.status_code == 400 and 'data-field="value"' in again.content.decode()
    bad = reader_client.post("/follows/exclusions/", {"kind": "planet", "value": "x"})
    assert bad.status_code == 400 and 'data-field="kind"' in bad.content.decode()
    exclusion = Exclusion.objects.get()
    assert other_client.post(f"/follows/exclusions/{exclusion.pk}/delete/").status_code == 404
    assert reader_client.post(f"/follows/exclusions/{exclusion.pk}/delete/").status_code == 302
    assert not Exclusion.objects.exists()


def test_paper_and_library_pages_link_to_prefilled_follows(reader_client, reader):
    harvest(f.record("2611.00001", categories=["cs.CL", "cs.LG"], authors=["Ada Lovelace"]), days_ago=1)
    html = reader_client.get("/papers/2611.00001/").content.decode()
    assert 'href="/follows/new/?kind=author&amp;author=Ada%20Lovelace"' in html
    assert 'href="/follows/new/?kind=category&amp;code=cs.LG"' in html
    library = reader_client.get("/papers/?category=cs.CL&q=paper&ai=0&sort=updated&size=10").content.decode()
    assert 'href="/follows/new/?kind=filters&amp;category=cs.CL&amp;q=paper&amp;ai=0"' in library
    assert "data-follow-search" not in reader_client.get("/papers/").content.decode()
    form = reader_client.get("/follows/new/?kind=filters&category=cs.CL&q=paper&hf=1&ai=0").content.decode()
    assert 'value="cs.CL"' in form and 'data-preview="7"' in form
    assert '<option value="1" selected>' in form.split('name="hf"')[1].split("</select>")[0]
    assert '<option value="0" selected>' in form.split('name="ai"')[1].split("</select>")[0]
    search = {"kind": "filters", "category": "cs.CL", "q": "paper", "ai": "0", "name": "Saved", "action": "save"}
    refused = reader_client.post("/follows/new/", {**search, "hf": "maybe"})
    assert refused.status_code == 400 and 'data-field="hf"' in refused.content.decode()
    assert reader_client.post("/follows/new/", search).status_code == 302
    assert Follow.objects.get().value == {"category": ["cs.CL"], "q": "paper", "ai": "0"}
