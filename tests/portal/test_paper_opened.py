"""`POST /papers/<arXiv id>/opened/`: the paper page, loaded by a signed-in
reader, says so (its GET writes nothing). The record's last read version, the
paper's trail cards and its recommendations are marked, for that reader only,
and the latest version's full text is wanted (reason "opened"); the answer is
the navigation's trail link with the unread count now."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.test import Client

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.models import Recommendation
from accounts.records.models import Record
from accounts.records.services import record_save
from accounts.trail.selectors import trail_unread_total
from harvest.fulltext.models import FullText
from harvest.fulltext.services import PRIORITY
from harvest.models import Paper
from tests.accounts.conftest import ago, card_of, cards, harvest, record
from tests.portal.db_writes import rows_written

pytestmark = pytest.mark.django_db

OPENED = "/papers/2611.00001/opened/"


@pytest.fixture
def world(reader) -> dict:
    """Two readers following cs.LG, each with an unread card of 2611.00001 and
    2611.00002; the reader saved 2611.00001 (never opened) and has it recommended."""
    other = User.objects.create_user("other", password="x")
    for user in (reader, other):
        follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="ML")
    harvest(record("2611.00001"), record("2611.00002"), at=ago(hours=3))
    harvest(record("2611.00003", categories=["cs.RO"]), at=ago(hours=2))
    paper = Paper.objects.get(arxiv_id="2611.00001")
    record_save(user=reader, paper=paper)
    recommended = Recommendation.objects.create(
        user=reader, paper=paper, score=1.0, reasons={"neighbours": [], "terms": []}, event_at=ago(hours=3)
    )
    return {"other": other, "paper": paper, "recommended": recommended}


def unread_papers(user: User) -> set[str]:
    ids = [card.paper_id for card in cards(user) if card.unread]
    return set(Paper.objects.filter(pk__in=ids).values_list("arxiv_id", flat=True))


def test_opening_marks_the_card_read_the_record_opened_and_the_recommendation_seen(reader, reader_client, world):
    assert unread_papers(reader) == {"2611.00001", "2611.00002"}
    assert Record.objects.get(user=reader).last_read_version is None

    response = reader_client.post(OPENED, {"version": "1"})

    assert response.status_code == 200
    assert unread_papers(reader) == {"2611.00002"}
    assert Record.objects.get(user=reader).last_read_version == 1
    assert Recommendation.objects.get(pk=world["recommended"].pk).seen_at is not None
    # The navigation's link, swapped in out of band, with the one unread card left.
    body = response.content.decode()
    assert body.startswith('<a id="nav-trail" href="/trail/" hx-swap-oob="true">')
    assert re.search(r'<span class="nav-count"[^>]*>1</span>', body)
    # Another reader's card of the same paper is theirs to read.
    assert unread_papers(world["other"]) == {"2611.00001", "2611.00002"}
    # Opening it again changes nothing.
    before = rows_written()
    assert reader_client.post(OPENED, {"version": "1"}).status_code == 200
    assert rows_written() == before


def test_opening_wants_the_latest_versions_full_text_once_and_the_page_get_wants_nothing(reader, reader_client, world):
    """The reading of a paper someone opens is to be written from its full
    text: the page's POST queues the latest version's (with the one before it,
    for a revision's "what changed"), first among the day's wishes; opening it
    again queues nothing more, and the page's GET never asks."""
    assert reader_client.get("/papers/2611.00001/").status_code == 200
    assert not FullText.objects.exists()

    assert reader_client.post(OPENED, {"version": "1"}).status_code == 200
    (wanted,) = FullText.objects.select_related("version__paper")
    assert (wanted.version.paper.arxiv_id, wanted.version.number) == ("2611.00001", 1)
    assert wanted.reasons == [FullText.Reason.OPENED] and wanted.status == FullText.Status.WAITING
    assert wanted.priority == PRIORITY[FullText.Reason.OPENED] < PRIORITY[FullText.Reason.SAVED]

    before = rows_written()
    assert reader_client.post(OPENED, {"version": "1"}).status_code == 200
    assert rows_written() == before
    assert list(FullText.objects.values_list("version_id", "reasons")) == [(wanted.version_id, ["opened"])]

    harvest(record("2611.00001", versions=2), at=ago(minutes=30))
    assert reader_client.get("/papers/2611.00001/").status_code == 200
    assert FullText.objects.count() == 1
    assert reader_client.post(OPENED, {"version": "2"}).status_code == 200
    wanted_versions = FullText.objects.filter(reasons__contains=["opened"]).values_list("version__number", flat=True)
    assert sorted(wanted_versions) == [1, 2]


def test_a_readers_openings_ask_for_full_text_up_to_the_daily_cap_and_still_count_as_opened(
    reader, reader_client, world, settings
):
    """Browsing past the cap is still recorded; it only stops adding to the
    site's one fetching queue. Another reader has a cap of their own."""
    settings.PAPERTRAIL_FULLTEXT_OPENED_PER_DAY = 2
    for arxiv_id in ("2611.00003", "2611.00001", "2611.00002"):
        assert reader_client.post(f"/papers/{arxiv_id}/opened/", {"version": "1"}).status_code == 200
    wanted = FullText.objects.values_list("version__paper__arxiv_id", flat=True)
    assert sorted(wanted) == ["2611.00001", "2611.00003"]
    # The third opening, past the cap, still reads its card.
    assert unread_papers(reader) == set()

    other = Client()
    other.force_login(world["other"])
    assert other.post("/papers/2611.00002/opened/", {"version": "1"}).status_code == 200
    assert FullText.objects.filter(version__paper__arxiv_id="2611.00002").exists()


def test_the_page_carries_the_post_for_a_signed_in_reader_only(reader_client, world):
    page = reader_client.get("/papers/2611.00001/").content.decode()
    form = re.search(r"<form hidden [^>]*data-paper-opened>.*?</form>", page).group(0)
    assert f'hx-post="{OPENED}" hx-trigger="load"' in form and 'name="csrfmiddlewaretoken"' in form
    assert 'name="version" value="1"' in form
    assert "data-paper-opened" not in Client().get("/papers/2611.00001/").content.decode()


def test_a_get_is_refused_and_writes_nothing(reader, reader_client, world):
    before = rows_written()
    assert reader_client.get(OPENED).status_code == 405
    assert rows_written() == before
    assert "2611.00001" in unread_papers(reader)


def test_it_needs_sign_in(reader, world):
    before = rows_written()
    response = Client().post(OPENED, {"version": "1"})
    assert response.status_code == 302 and response.url == redirect_to_login(OPENED, settings.LOGIN_URL).url
    assert rows_written() == before


def test_it_needs_the_pages_csrf_token(reader, world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reader)
    page = client.get("/papers/2611.00001/").content.decode()
    token = re.search(r'data-paper-opened>\s*<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"', page)
    before = rows_written()
    assert client.post(OPENED, {"version": "1"}).status_code == 403
    assert rows_written() == before
    assert client.post(OPENED, {"version": "1", "csrfmiddlewaretoken": token.group(1)}).status_code == 200
    assert "2611.00001" not in unread_papers(reader)


def test_a_paper_outside_the_readers_trail_and_record_is_harmless(reader, reader_client, world):
    """cs.RO is no follow of theirs: nothing to mark and nothing made; the one
    row written is the wish for its full text."""
    before = rows_written()
    response = reader_client.post("/papers/2611.00003/opened/", {"version": "1"})
    assert response.status_code == 200
    assert rows_written() == before + 1
    assert FullText.objects.get().version.paper.arxiv_id == "2611.00003"
    assert card_of(reader, "2611.00003") is None
    assert unread_papers(reader) == {"2611.00001", "2611.00002"}
    assert re.search(r'<span class="nav-count"[^>]*>2</span>', response.content.decode())


def test_an_unknown_paper_is_a_404(reader_client, world):
    assert reader_client.post("/papers/2699.99999/opened/", {"version": "1"}).status_code == 404


def test_a_version_older_than_the_latest_marks_nothing(reader, reader_client, world):
    """The page showed v1; v2 arrived before its POST: the revision stays unread."""
    assert reader_client.post(OPENED, {"version": "1"}).status_code == 200
    harvest(record("2611.00001", versions=2), at=ago(minutes=30))
    assert unread_papers(reader) == {"2611.00001", "2611.00002"}  # the revision, unread again
    before = rows_written()
    stale = reader_client.post(OPENED, {"version": "1"})
    assert stale.status_code == 409 and "刷新" in stale.content.decode()
    assert reader_client.post(OPENED, {}).status_code == 400
    assert rows_written() == before
    assert Record.objects.get(user=reader).last_read_version == 1
    assert reader_client.post(OPENED, {"version": "2"}).status_code == 200
    assert unread_papers(reader) == {"2611.00002"} and Record.objects.get(user=reader).last_read_version == 2
    assert trail_unread_total(user=reader) == 1
