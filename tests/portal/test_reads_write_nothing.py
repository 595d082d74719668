"""Reads never write: after a harvest is matched, a signed-in reader's every
read (pages, the API, the feed, the export) writes no row; the cards they show
are composed from the matches when read."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from accounts.alerts.links import alert_settings_of, rating_url
from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.models import Rating
from accounts.recommend.services import rating_set
from accounts.records.services import record_save
from accounts.trail.matching import match_versions
from harvest.models import Paper
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests.accounts.conftest import ago, cards, record

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
    "/api/v1/me/ratings/",
    "/api/v1/me/ratings/2611.00002/",
    "/api/v1/me/recommendations/",
)


def rows_written() -> int:
    """Rows this transaction inserted, updated or deleted so far (the test and
    its client share one connection and one transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_user_tables")
        return int(cursor.fetchone()[0])


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

    before = rows_written()
    statuses = {path: client.get(path).status_code for path in (*READS, feed, rating_link)}
    assert rows_written() == before, "a read wrote rows"
    assert set(statuses.values()) == {200}, statuses
    # No delivery step: the matches are the reader's cards at once, and the reads show them.
    shown = {card.paper_id for card in cards(reader)}
    assert shown == set(Paper.objects.filter(arxiv_id__in=["2611.00001", "2611.00002"]).values_list("pk", flat=True))
    assert rows_written() == before
    page = client.get("/trail/").content.decode()
    assert client.get(feed).status_code == 200
    assert rows_written() == before
    assert "Paper 2611.00002" in page
