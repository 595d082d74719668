"""The private Atom feeds read by feedparser, a real feed reader."""

from __future__ import annotations

import feedparser
import pytest
from django.test import Client
from django.urls import reverse

from accounts.alerts.links import alert_settings_for, feed_secret_rotate
from tests.accounts.alerts.world import backfilled_and_gapped, day_of_papers, follows, reader
from tests.accounts.conftest import ago, cards, harvest, record

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    user = reader("alice")
    follows(user)
    day_of_papers()
    return user


def _trail_url(user) -> str:
    return reverse("portal:feed_trail", kwargs={"secret": alert_settings_for(user).feed_secret})


def test_the_trail_feed_is_valid_atom_with_authors_categories_summary_and_takeaway(alice):
    response = Client().get(_trail_url(alice))
    assert response.status_code == 200 and response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.bozo_exception
    assert feed.version == "atom10"
    assert len(feed.entries) == len(cards(alice)) == 4
    entry = next(e for e in feed.entries if "Sparse attention" in e.title)
    assert entry.title == "[New paper · v1] Sparse attention for long documents"
    assert entry.id.endswith(":arxiv/2611.00001v1")
    assert [author.name for author in entry.authors] == ["Ada Lovelace", "Alan Turing"]
    assert {tag.term for tag in entry.tags} == {"cs.LG", "cs.CL"}
    assert "Sparse attention halves the cost." in entry.summary and "An abstract." in entry.summary
    assert entry.link == "http://127.0.0.1:8000/papers/2611.00001/"
    revision = next(e for e in feed.entries if "Old learning paper" in e.title)
    # The entry carries the version's badge, as every page shows it (harvest.badges).
    assert revision.title.startswith("[Revision · v2]") and revision.id.endswith("2611.00002v2")


@pytest.mark.parametrize(
    ("language", "titles"),
    [
        (
            "en",
            {
                "Archival learning paper": "[Archival · published 2016-03] Archival learning paper",
                "Sparse attention": "[New paper · v1] Sparse attention for long documents",
                "Old learning paper": "[Revision · v2] Old learning paper",
                "Arrived at its second": "[Revision · v2] Arrived at its second version",
            },
        ),
        (
            "zh-hans",
            {
                "Archival learning paper": "[历史论文 · 2016-03 发布] Archival learning paper",
                "Sparse attention": "[新论文 · v1] Sparse attention for long documents",
                "Old learning paper": "[修订 · v2] Old learning paper",
                "Arrived at its second": "[修订 · v2] Arrived at its second version",
            },
        ),
    ],
)
def test_entries_carry_the_pages_badges_not_the_trails_event_kind(alice, language, titles):
    """A back-fill's 2016 paper is archival in the feed as on the trail; a
    paper read since v1 is a revision at v2 whatever its card's event."""
    alice.language = language
    alice.save(update_fields=["language"])
    backfilled_and_gapped()
    feed = feedparser.parse(Client().get(_trail_url(alice)).content)
    assert not feed.bozo, feed.bozo_exception
    found = {key: entry.title for entry in feed.entries for key in titles if key in entry.title}
    assert found == titles


def test_a_follow_feed_holds_that_follows_matches_only(alice):
    _daily, _weekly, robots = follows_of(alice)
    secret = alert_settings_for(alice).feed_secret
    url = reverse("portal:feed_follow", kwargs={"secret": secret, "follow_id": robots.pk})
    feed = feedparser.parse(Client().get(url).content)
    assert [entry.title for entry in feed.entries] == ["[New paper · v1] Walking robots"]
    assert feed.feed.title.endswith("Robots")


def follows_of(user):
    return tuple(user.follows.order_by("id"))


def test_entry_ids_are_unique_and_stable_across_two_polls(alice):
    client = Client()
    first = feedparser.parse(client.get(_trail_url(alice)).content)
    harvest(record("2611.00006", title="Newer learning paper", categories=["cs.LG"]), at=ago(minutes=20))
    # The revision of a paper already in the feed is a new entry; the rest keep their ids.
    harvest(
        record("2611.00001", title="Sparse attention, revised", categories=["cs.LG"], versions=2), at=ago(minutes=10)
    )
    second = feedparser.parse(client.get(_trail_url(alice)).content)
    first_ids = [entry.id for entry in first.entries]
    second_ids = [entry.id for entry in second.entries]
    assert len(set(first_ids)) == len(first_ids) and len(set(second_ids)) == len(second_ids)
    new_ids = set(second_ids) - set(first_ids)
    assert {i.rsplit("/", 1)[1] for i in new_ids} == {"2611.00006v1", "2611.00001v2"}
    unchanged = {e.id: e.title for e in first.entries}
    for entry in second.entries:
        if entry.id in unchanged:
            assert entry.title == unchanged[entry.id]


def test_a_conditional_get_is_answered_304_until_something_changes(alice):
    client = Client()
    url = _trail_url(alice)
    first = client.get(url)
    etag, modified = first["ETag"], first["Last-Modified"]
    assert etag and modified and "private" in first["Cache-Control"]
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert client.get(url, HTTP_IF_MODIFIED_SINCE=modified).status_code == 304
    # feedparser sends both validators, as a reader polling does.
    polled = feedparser.parse(first.content)
    assert polled.entries
    harvest(record("2611.00007", categories=["cs.LG"]), at=ago(minutes=1))
    changed = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_a_rotated_secret_gives_404_and_the_new_one_works(alice):
    old = _trail_url(alice)
    daily = follows_of(alice)[0]
    old_follow = reverse(
        "portal:feed_follow", kwargs={"secret": alert_settings_for(alice).feed_secret, "follow_id": daily.pk}
    )
    feed_secret_rotate(user=alice)
    client = Client()
    assert client.get(old).status_code == 404 and client.get(old_follow).status_code == 404
    assert client.get(_trail_url(alice)).status_code == 200


def test_a_feed_request_makes_a_fixed_number_of_queries(alice, django_assert_max_num_queries):
    url = _trail_url(alice)
    # The secret's user; the reader's follows, exclusions and mark; the
    # matches, other versions and card states of two windows; scores, papers,
    # readings and the versions' badges: the same however many entries.
    with django_assert_max_num_queries(12):
        assert Client().get(url).status_code == 200
