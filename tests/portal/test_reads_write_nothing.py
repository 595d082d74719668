"""Reads never write: after a harvest is matched, a signed-in reader's every
read (pages, the API, the feed, the export) writes no row; the cards they show
were made by the workers' delivery."""

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
from accounts.trail.delivery import trail_catch_up_users
from accounts.trail.matching import match_versions
from accounts.trail.models import TrailItem
from harvest.models import Paper
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests.accounts.conftest import ago, record

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
    "/trail/picks/",
    "/api/v1/me/picks/",
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
    assert TrailItem.objects.filter(user=reader).count() == 0  # matched, not delivered yet

    # The workers' delivery makes the cards; the reads then show them, still writing nothing.
    trail_catch_up_users(user_ids=[reader.pk])
    before = rows_written()
    page = client.get("/trail/").content.decode()
    assert client.get(feed).status_code == 200
    assert rows_written() == before
    assert "Paper 2611.00002" in page
