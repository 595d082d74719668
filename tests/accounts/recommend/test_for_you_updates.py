""" "For you" follows the reader: a thumb, a pick or a save is announced as
"updating" until the retraining that learns it has written its scores (a
change during a retraining waits for the next one), the retraining is
queued seconds after the change, and a saved paper never tops the order
(the trail, the feed and the alerts read the same scores)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache

from accounts.alerts.feeds import feed_state
from accounts.alerts.models import AlertSettings
from accounts.follows.services import follow_create
from accounts.recommend.debounce import examples_learnt, retrain_claimed
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.models import Rating
from accounts.recommend.services import rating_set
from accounts.recommend.trail_order import for_you_page, paper_scores, ranking_seed, scores_of_users
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest
from tests.accounts.recommend.test_for_you import OTHERS, TOPIC, _embed, _papers, _records

# The trail's days are the reader's: a known instant, so "30 minutes ago" is today.
pytestmark = pytest.mark.calendar


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def day(user) -> dict:
    """Yesterday three papers on differential privacy, saved; today the topic's
    others among four other needs' papers: every one a card of the trail."""
    groups = _papers((TOPIC, *OTHERS))
    follow_create(user=user, kind="category", value={"code": "cs.LG"})
    harvest(*_records(groups[TOPIC][:3]), at=ago(days=1, hours=2))
    today = groups[TOPIC][3:] + [paper for need in OTHERS for paper in groups[need]]
    harvest(*_records(today), at=ago(minutes=30))
    _embed()
    for paper in groups[TOPIC][:3]:
        record_save(user=user, paper=Paper.objects.get(arxiv_id=paper["arxiv_id"]))
    retrain_and_rescore(user.pk)
    return {"today": [p["arxiv_id"] for p in today], "others": [p["arxiv_id"] for p in groups[OTHERS[0]]]}


def _order(user) -> list[str]:
    return [entry.paper.arxiv_id for entry in for_you_page(user=user, size=100).entries]


def test_a_thumb_is_announced_as_updating_until_its_retraining_has_scored(user, day):
    assert not ranking_seed(user).updating
    rating_set(user=user, paper=Paper.objects.get(arxiv_id=day["others"][0]), value=Rating.Value.UP)
    assert ranking_seed(user).updating
    retrain_and_rescore(user.pk)
    assert not ranking_seed(user).updating


def test_a_change_during_a_retraining_waits_for_the_next_one(user, day):
    rating_set(user=user, paper=Paper.objects.get(arxiv_id=day["others"][0]), value=Rating.Value.UP)
    started = retrain_claimed(user.pk)  # a retraining starts and reads one change...
    rating_set(user=user, paper=Paper.objects.get(arxiv_id=day["others"][1]), value=Rating.Value.UP)
    examples_learnt(user.pk, started)  # ...and finishes before the second is learnt
    assert ranking_seed(user).updating
    retrain_and_rescore(user.pk)
    assert not ranking_seed(user).updating


def test_a_reader_without_a_ranking_is_told_their_first_picks_are_being_learnt(user):
    follow_create(user=user, kind="category", value={"code": "cs.LG"})
    harvest(*_records(_papers((TOPIC,))[TOPIC][:2]), at=ago(minutes=30))
    rating_set(user=user, paper=Paper.objects.first(), value=Rating.Value.UP)
    seed = ranking_seed(user)
    assert seed.updating and not seed.ready


def test_the_retraining_is_queued_seconds_after_a_change():
    # The default: a burst of clicks trains once, and "for you" follows in seconds, not minutes.
    assert 0 < settings.RECOMMEND_RETRAIN_DELAY_SECONDS <= 5


def test_a_saved_paper_never_tops_the_order_and_comes_last_in_its_day(user, day):
    first = _order(user)[0]
    assert first in day["today"]
    record_save(user=user, paper=Paper.objects.get(arxiv_id=first))
    # Before the retraining and after it (it then taught the model, so it scores highest).
    for _ in range(2):
        entries = for_you_page(user=user, size=100).entries
        today = [entry for entry in entries if entry.paper.arxiv_id in day["today"]]
        assert today[0].paper.arxiv_id != first
        assert today[-1].paper.arxiv_id == first and today[-1].score is None
        assert all(entry.score is not None for entry in today[:-1])
        retrain_and_rescore(user.pk)
    saved = Paper.objects.get(arxiv_id=first).pk
    assert saved not in paper_scores(user.pk, [saved], since=ago(days=30))
    assert saved not in scores_of_users({user.pk: {saved}}, since=ago(days=30))[user.pk]
    secret = AlertSettings.objects.get_or_create(user=user)[0].feed_secret
    rows = feed_state(secret=secret, follow_id=None, size=100).rows
    assert Paper.objects.get(pk=rows[0][0]).arxiv_id != first
