"""A harvest's follows matched once per definition
(accounts.trail.definition_matches) and each reader's trail composed from
those matches when read (accounts.trail.composition): nothing per reader is
written at harvest time, and a read writes nothing."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from accounts.follows.definition import definition_key
from accounts.follows.services import exclusion_create, follow_create, follow_update
from accounts.models import User
from accounts.trail.definition_matches import RETENTION_DAYS, prune_definition_matches
from accounts.trail.lock import _LOCK_KEY
from accounts.trail.matching import match_versions
from accounts.trail.models import DefinitionMatch, ReaderMatch, TrailState
from accounts.trail.selectors import trail_page, trail_unread_total
from accounts.trail.services import trail_mark_read_papers
from harvest.models import Paper
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests.accounts.conftest import ago, record
from tests.accounts.conftest import cards as trail_cards

pytestmark = pytest.mark.django_db


def readers(count: int) -> list[User]:
    return [User.objects.create_user(username=f"reader{n}", password="x") for n in range(count)]


def follow(user, kind, value, **options):
    return follow_create(user=user, kind=kind, value=value, name=f"{kind} follow", **options)


def harvest_only(*records, at=None):
    """A harvest page and its matching task, with no trail read afterwards."""
    result = paper_upsert_many(records=list(records), now=at or ago(minutes=5))
    index_pending_papers()
    return match_versions(version_ids=result.created_version_ids)


def cards(user) -> list[tuple[str, int, str]]:
    arxiv_ids = dict(Paper.objects.values_list("id", "arxiv_id"))
    return sorted((arxiv_ids[card.paper_id], card.version_number, card.kind) for card in trail_cards(user))


def test_a_definition_followed_by_many_is_matched_once_and_reaches_each_trail_at_once():
    users = readers(3)
    for user in users:
        follow(user, "category", {"code": "cs.LG"})
    matched = harvest_only(record("2611.00001"), record("2611.00002", categories=["cs.CL", "cs.LG"]))
    assert matched.hits == 2
    key = definition_key("category", {"code": "cs.LG"})
    assert sorted(DefinitionMatch.objects.values_list("definition", "paper__arxiv_id", "is_primary")) == [
        (key, "2611.00001", True),
        (key, "2611.00002", False),
    ]
    # Nothing per reader at harvest time, nor when read.
    assert ReaderMatch.objects.count() == TrailState.objects.count() == 0
    for user in users:
        assert trail_unread_total(user=user) == 2
        assert cards(user) == [("2611.00001", 1, "new"), ("2611.00002", 1, "new")]
    assert ReaderMatch.objects.count() == TrailState.objects.count() == 0


def test_each_follow_of_a_shared_definition_keeps_its_own_switches_and_the_users_exclusions():
    everything, primary_only, new_only, muted, excluding = readers(5)
    follow(everything, "category", {"code": "cs.LG"})
    follow(primary_only, "category", {"code": "cs.LG"}, include_cross_lists=False)
    follow(new_only, "category", {"code": "cs.LG"}, include_revisions=False)
    follow(muted, "category", {"code": "cs.LG"}, muted=True)
    follow(excluding, "category", {"code": "cs.LG"})
    exclusion_create(user=excluding, kind="query", value="transformers")
    harvest_only(
        record("2611.00001"),
        record("2611.00002", categories=["cs.CL", "cs.LG"]),
        record("2611.00003", title="Transformers at scale"),
        record("2611.00004", versions=2),
        at=ago(days=1),
    )
    harvest_only(record("2611.00004", versions=3), at=ago(hours=1))
    expected = {
        everything: ["2611.00001", "2611.00002", "2611.00003", "2611.00004"],
        primary_only: ["2611.00001", "2611.00003", "2611.00004"],
        new_only: ["2611.00001", "2611.00002", "2611.00003", "2611.00004"],
        muted: [],
        excluding: ["2611.00001", "2611.00002", "2611.00004"],
    }
    for user, papers in expected.items():
        assert [e.paper.arxiv_id for e in reversed(trail_page(user=user).entries)] == papers, user.username
    # One card at the newest version each follow admitted, whenever it is
    # read: the follow without revisions took only the paper's arrival (v2,
    # which came with v1), not the revision to v3.
    assert ("2611.00004", 3, "new") in cards(everything)
    (item,) = [e for e in trail_page(user=new_only).entries if e.paper.arxiv_id == "2611.00004"]
    assert [m.version_number for m in item.matches] == [2]


def test_the_trail_page_shows_a_harvest_as_soon_as_it_is_matched_and_writes_nothing(client):
    (user,) = readers(1)
    follow(user, "category", {"code": "cs.LG"})
    client.force_login(user)
    assert "Sparse attention for everyone" not in client.get("/trail/").content.decode()
    harvest_only(record("2611.00001", title="Sparse attention for everyone"))
    response = client.get("/trail/")
    assert response.status_code == 200
    assert "Sparse attention for everyone" in response.content.decode()
    assert ReaderMatch.objects.count() == TrailState.objects.count() == 0


def test_a_follow_made_after_a_harvest_takes_it_once_through_its_back_fill():
    earlier, user = readers(2)
    follow(earlier, "category", {"code": "cs.LG"})
    harvest_only(record("2611.00001"), at=ago(days=2))
    followed = follow(user, "category", {"code": "cs.LG"})
    followed.refresh_from_db()
    assert followed.matched_after == DefinitionMatch.objects.order_by("-id").values_list("id", flat=True)[0]
    assert cards(user) == [("2611.00001", 1, "new")]
    harvest_only(record("2611.00001", versions=2), at=ago(hours=1))
    assert trail_unread_total(user=user) == 1
    assert cards(user) == [("2611.00001", 2, "new")]


def test_an_edit_applies_the_matches_recorded_before_it_under_the_old_follow():
    (user,) = readers(1)
    followed = follow(user, "category", {"code": "cs.LG"})
    harvest_only(record("2611.00001", categories=["cs.CL", "cs.LG"]), at=ago(hours=2))
    # Before the trail is read, cross-lists are turned off: the cross-listed
    # paper was matched under the old follow; the back-fill no longer takes it.
    follow_update(follow=followed, include_cross_lists=False)
    followed.refresh_from_db()
    assert followed.matched_after > 0
    assert cards(user) == []
    assert trail_unread_total(user=user) == 0


@pytest.mark.django_db(transaction=True)  # the writers' lock is a transaction's: each step commits
def test_a_read_does_not_wait_while_the_matches_are_being_written():
    (user,) = readers(1)
    follow(user, "category", {"code": "cs.LG"})
    harvest_only(record("2611.00001"))
    settings = connection.settings_dict
    other = psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        password=settings["PASSWORD"],
        dbname=settings["NAME"],
        autocommit=True,
    )
    try:
        assert other.execute("SELECT pg_try_advisory_lock(%s)", [_LOCK_KEY]).fetchone()[0]
        assert trail_unread_total(user=user) == 1  # served at once, the writers' lock held elsewhere
        assert [e.paper.arxiv_id for e in trail_page(user=user).entries] == ["2611.00001"]
        other.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_KEY])
    finally:
        other.close()


@pytest.mark.calendar  # the retention is counted back from now
def test_matches_past_the_retention_are_dropped():
    (user,) = readers(1)
    follow(user, "category", {"code": "cs.LG"})
    harvest_only(record("2611.00001"), at=ago(days=40))
    harvest_only(record("2611.00002"), at=ago(days=1))
    # The first batch was recorded past the retention (matches come in id order, batch by batch).
    old = DefinitionMatch.objects.filter(paper__arxiv_id="2611.00001")
    assert old.update(created_at=timezone.now() - timedelta(days=RETENTION_DAYS + 1)) == 1
    assert prune_definition_matches() == 1
    assert list(DefinitionMatch.objects.values_list("paper__arxiv_id", flat=True)) == ["2611.00002"]
    assert prune_definition_matches() == 0


def test_a_paper_opened_from_the_library_reads_its_card():
    (user,) = readers(1)
    follow(user, "category", {"code": "cs.LG"})
    harvest_only(record("2611.00001"), record("2611.00002"))
    paper = Paper.objects.get(arxiv_id="2611.00001")
    assert trail_mark_read_papers(user=user, paper_ids=[paper.pk]) == 1
    assert trail_unread_total(user=user) == 1
    assert [e.paper.arxiv_id for e in trail_page(user=user, unread_only=True).entries] == ["2611.00002"]


def test_a_reader_away_for_months_finds_the_last_harvest_at_once(client):
    (dormant,) = readers(1)
    long_ago = timezone.now() - timedelta(days=90)
    follow(dormant, "category", {"code": "cs.LG"})
    User.objects.filter(pk=dormant.pk).update(date_joined=long_ago, last_login=long_ago)
    harvest_only(record("2611.00001"))
    dormant.set_password("pw")
    dormant.save()
    assert client.login(username=dormant.username, password="pw")
    assert cards(dormant) == [("2611.00001", 1, "new")]
