"""Reads never write: after a harvest is matched, a signed-in reader's every
read (pages, the API, the feed, the export) writes no row; the cards they show
are composed from the matches when read. Opening a paper (its page, a trail
card's or a recommendation's "open" link) writes nothing either: the page's
own POST once loaded does (tests/portal/test_paper_opened.py)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from accounts.alerts.links import alert_settings_of, rating_url
from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.models import Rating, Recommendation
from accounts.recommend.services import rating_set
from accounts.records.services import record_save
from accounts.trail.matching import match_versions
from harvest.models import Paper
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests.accounts.conftest import ago, card_of, cards, record
from tests.portal.db_writes import rows_written

pytestmark = pytest.mark.django_db

READS = (
    "/",
    "/trail/",
    "/trail/?unread=1",
    "/papers/",
    "/records/",
    "/records/export/?format=bibtex",
    "/me/",
    "/follows/",
    "/api/v1/me/trail/",
    "/api/v1/me/follows/",
    "/api/v1/me/records/export/?format=json",
    "/ask/",
    "/ask/?question=flaky",
    "/api/v1/me/asks/",
    "/trail/recommended/",
    # A saved paper never opened and a paper of the trail: opening either wrote, once.
    "/papers/2611.00001/",
    "/papers/2611.00002/",
    "/trail/picks/",
    "/api/v1/me/picks/",
    "/api/v1/me/ratings/",
    "/api/v1/me/ratings/2611.00002/",
    "/api/v1/me/recommendations/",
)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="counts rows with PostgreSQL's statistics")
def test_a_signed_in_readers_reads_after_a_harvest_write_no_row():
    reader = User.objects.create_user(username="reader", password="x")
    follow_create(user=reader, kind="category", value={"code": "cs.LG"}, name="cs.LG")
    client = Client()
    client.force_login(reader)
    stored = paper_upsert_many(records=[record("2611.00001"), record("2611.00002")], now=ago(minutes=5))
    index_pending_papers()
    record_save(user=reader, paper=Paper.objects.get(arxiv_id="2611.00001"))
    match_versions(version_ids=stored.created_version_ids)
    feed = f"/feeds/{alert_settings_of(reader).feed_secret}/trail.atom"
    rated = Paper.objects.get(arxiv_id="2611.00002")
    rating_set(user=reader, paper=rated, value=Rating.Value.UP)
    # An alert's "less like this" link: its GET only asks.
    rating_link = rating_url(user_id=reader.pk, paper_id=rated.pk, value=-1).removeprefix(settings.SITE_URL)
    # A recommendation not seen yet, as the scoring stores one.
    recommended = Recommendation.objects.create(
        user=reader, paper=rated, score=1.0, reasons={"neighbours": [], "terms": []}, event_at=ago(minutes=5)
    )

    before = rows_written()
    statuses = {path: client.get(path).status_code for path in (*READS, feed, rating_link)}
    assert rows_written() == before, "a read wrote rows"
    assert set(statuses.values()) == {200}, statuses
    # No delivery step: the matches are the reader's cards at once, and the reads show them.
    shown = {card.paper_id for card in cards(reader)}
    assert shown == set(Paper.objects.filter(arxiv_id__in=["2611.00001", "2611.00002"]).values_list("pk", flat=True))
    assert rows_written() == before
    card = card_of(reader, rated.arxiv_id)
    page = client.get("/trail/").content.decode()
    assert client.get(feed).status_code == 200
    opened = {
        path: client.get(path)
        for path in (
            f"/trail/{card.paper_id}/open/",
            f"/trail/recommended/{recommended.pk}/open/",
            "/papers/2611.00002/",
        )
    }
    assert rows_written() == before
    assert "Paper 2611.00002" in page
    assert [response.status_code for response in opened.values()] == [302, 302, 200]
    assert card_of(reader, rated.arxiv_id).unread
    assert Recommendation.objects.get(pk=recommended.pk).seen_at is None
