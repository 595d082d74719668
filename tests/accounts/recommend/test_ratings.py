"""Thumbs up / down: setting, changing and undoing a rating retrains (once,
debounced) only when something changed; the ratings of a page are one query
and the reader's own; a thumbs-down paper is a negative example and a
thumbs-up one a positive, and the trained model follows them."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache

from accounts.recommend.debounce import RETRAIN_KEY
from accounts.recommend.examples import paper_texts, user_examples
from accounts.recommend.features import vectorize
from accounts.recommend.models import Rating, RecommenderModel
from accounts.recommend.selectors import rating_get, rating_list, ratings_for_papers
from accounts.recommend.services import rating_clear, rating_set
from accounts.recommend.training import load, train_user
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest, record
from tests.accounts.recommend.helpers import store_real_papers, topic

pytestmark = pytest.mark.django_db
UP, DOWN = Rating.Value.UP, Rating.Value.DOWN


@pytest.fixture(autouse=True)
def no_waiting_retrain(user, other_user):
    for person in (user, other_user):
        cache.delete(RETRAIN_KEY.format(user_id=person.pk))
    yield
    for person in (user, other_user):
        cache.delete(RETRAIN_KEY.format(user_id=person.pk))


@pytest.fixture
def papers(db) -> list[Paper]:
    harvest(record("2611.00001"), record("2611.00002"), record("2611.00003"), at=ago(days=2))
    return list(Paper.objects.order_by("arxiv_id"))


def _retrains(user, capture, work) -> int:
    """How many retrainings `work` queued (the debounce key cleared first)."""
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    with capture(execute=False) as queued:
        work()
    return len(queued)


def test_a_rating_is_set_changed_and_undone_and_retrains_only_on_a_change(
    user, papers, django_capture_on_commit_callbacks
):
    paper = papers[0]
    capture = django_capture_on_commit_callbacks
    assert _retrains(user, capture, lambda: rating_set(user=user, paper=paper, value=UP)) == 1
    rating = rating_get(user=user, paper_id=paper.pk)
    assert (rating.value, rating.created_at == rating.updated_at) == (UP, True)
    # The same value again: nothing new, nothing to learn.
    assert _retrains(user, capture, lambda: rating_set(user=user, paper=paper, value=UP)) == 0
    assert rating_set(user=user, paper=paper, value=UP)[1] is False
    # Down replaces up: one row, a new value, a retraining.
    assert _retrains(user, capture, lambda: rating_set(user=user, paper=paper, value=DOWN)) == 1
    rating = Rating.objects.get(user=user, paper=paper)
    assert rating.value == DOWN and rating.updated_at > rating.created_at
    assert _retrains(user, capture, lambda: rating_clear(user=user, paper=paper)) == 1
    assert not Rating.objects.filter(user=user).exists()
    assert _retrains(user, capture, lambda: rating_clear(user=user, paper=paper)) == 0
    with pytest.raises(ValueError):
        rating_set(user=user, paper=paper, value=2)


def test_a_pages_ratings_are_the_readers_own_in_one_query(user, other_user, papers, django_assert_num_queries):
    rating_set(user=user, paper=papers[0], value=UP)
    rating_set(user=user, paper=papers[1], value=DOWN)
    rating_set(user=other_user, paper=papers[2], value=UP)
    ids = [paper.pk for paper in papers]
    with django_assert_num_queries(1):
        found = ratings_for_papers(user=user, paper_ids=ids)
    assert found == {papers[0].pk: UP, papers[1].pk: DOWN}
    assert ratings_for_papers(user=other_user, paper_ids=ids) == {papers[2].pk: UP}
    with django_assert_num_queries(0):
        assert ratings_for_papers(user=AnonymousUser(), paper_ids=ids) == {}
        assert ratings_for_papers(user=user, paper_ids=[]) == {}
    assert rating_get(user=other_user, paper_id=papers[0].pk) is None
    assert [r.paper_id for r in rating_list(user=user, value=DOWN)] == [papers[1].pk]
    assert [r.paper_id for r in rating_list(user=user)] == [papers[1].pk, papers[0].pk]


def test_thumbs_down_papers_are_negatives_and_thumbs_up_ones_positives(user, papers):
    saved, liked, disliked = papers
    record_save(user=user, paper=saved)
    rating_set(user=user, paper=liked, value=UP)
    rating_set(user=user, paper=disliked, value=DOWN)
    examples = user_examples(user, seed=0)
    assert [paper.id for paper, _at in examples.saved] == [saved.pk]
    assert [paper.id for paper, _at in examples.liked] == [liked.pk]
    assert [paper.id for paper in examples.disliked] == [disliked.pk]
    assert examples.negatives == []  # "not interested" and dismissals stay apart
    assert not {paper.id for paper in examples.background} & {liked.pk, disliked.pk}
    # A saved paper is counted as a save, not a second time as a rating.
    rating_set(user=user, paper=saved, value=DOWN)
    assert saved.pk not in {paper.id for paper in user_examples(user, seed=0).disliked}


def _score(user, paper: Paper) -> float:
    model, _neighbours = load(RecommenderModel.objects.get(user=user, tag__isnull=True))
    return float(model.score(vectorize([paper_texts([paper.pk])[paper.pk]]))[0])


def test_the_trained_model_scores_thumbs_down_papers_lower_and_thumbs_up_ones_higher(user):
    library = store_real_papers()
    statistics, testing = topic(library, "stat.ME"), topic(library, "cs.SE")
    for paper in statistics[:3] + testing[:3]:
        record_save(user=user, paper=paper)
    down, up = statistics[3:9], testing[3:9]
    train_user(user, seed=0)
    before = {paper.pk: _score(user, paper) for paper in down + up}
    for paper in down:
        rating_set(user=user, paper=paper, value=DOWN)
    for paper in up:
        rating_set(user=user, paper=paper, value=UP)
    (model,) = train_user(user, seed=0)
    after = {paper.pk: _score(user, paper) for paper in down + up}
    # The thumbs-down papers' scores fall (on the whole: a paper sharing few
    # terms with the others barely moves), the thumbs-up ones' rise each.
    assert sum(after[p.pk] for p in down) < sum(before[p.pk] for p in down) - 1.0
    assert sum(after[p.pk] < before[p.pk] for p in down) >= len(down) - 1
    assert all(after[paper.pk] > before[paper.pk] + 1.0 for paper in up)
    assert model.positives == 3 + 3  # the saves; the likes train without being counted as saves
