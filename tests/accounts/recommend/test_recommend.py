"""Recommendations on real recorded papers: saves on one topic bring that
topic first, negatives push a topic down, explanations name papers the user
really saved, no model below the minimum, retraining is debounced, scores
follow a harvest (the offline evaluation is
test_evaluation.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from django.core.cache import cache

from accounts.follows.services import follow_create
from accounts.recommend import services
from accounts.recommend.debounce import RETRAIN_KEY, retrain_claimed
from accounts.recommend.examples import paper_texts, user_examples
from accounts.recommend.features import vectorize
from accounts.recommend.jobs import retrain_and_rescore, score_new_versions
from accounts.recommend.models import Recommendation, RecommenderModel
from accounts.recommend.selectors import recommendations_for_user, recommender_status
from accounts.recommend.services import recommendation_not_interested
from accounts.recommend.training import load, train_user
from accounts.records.models import Record
from accounts.records.services import record_save
from accounts.trail.services import trail_dismiss
from harvest.models import Paper
from harvest.services import paper_upsert_many
from tests.accounts.conftest import ago, cards, harvest, record
from tests.accounts.recommend.helpers import real_records, saved_ids, store_real_papers, topic

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_waiting_retrain(user):
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))
    yield
    cache.delete(RETRAIN_KEY.format(user_id=user.pk))


def _save(user, papers):
    for paper in papers:
        record_save(user=user, paper=paper)


def test_saves_on_one_topic_bring_that_topic_first(user):
    papers = store_real_papers()
    _save(user, topic(papers, "stat.ME")[:5])
    retrain_and_rescore(user.pk)
    top = recommendations_for_user(user, 10)
    assert len(top) == 10
    assert Counter(entry.paper.primary_category for entry in top)["stat.ME"] >= 9
    assert not {entry.paper.pk for entry in top} & saved_ids(user)


def test_software_testing_saves_bring_software_testing_first(user):
    papers = store_real_papers()
    _save(user, topic(papers, "cs.SE")[:5])
    retrain_and_rescore(user.pk)
    top = recommendations_for_user(user, 10)
    assert all("cs.SE" in entry.paper.categories for entry in top)


def _topic_share(user, primary: str, left_out: set[int]) -> float:
    """The topic's share of the model's 20 best-scored papers in the library,
    leaving out saved and refused papers (the model's own ranking, not only
    the rows kept)."""
    model, _neighbours = load(RecommenderModel.objects.get(user=user, tag__isnull=True))
    texts = paper_texts(Paper.objects.exclude(pk__in=left_out | saved_ids(user)).values_list("pk", flat=True))
    ids = sorted(texts)
    scores = model.score(vectorize([texts[pk] for pk in ids]))
    best = [ids[i] for i in scores.argsort()[::-1][:20]]
    categories = dict(Paper.objects.filter(pk__in=best).values_list("pk", "primary_category"))
    return sum(1 for pk in best if categories[pk] == primary) / 20


def test_not_interested_pushes_a_topic_down(user):
    papers = store_real_papers()
    _save(user, topic(papers, "stat.ME")[:4] + topic(papers, "cs.SE")[:4])
    retrain_and_rescore(user.pk)
    refusals = list(Recommendation.objects.filter(user=user, paper__primary_category="stat.ME").order_by("-score")[:12])
    assert len(refusals) == 12
    refused = {recommendation.paper_id for recommendation in refusals}
    before = _topic_share(user, "stat.ME", refused)
    for recommendation in refusals:
        recommendation_not_interested(user=user, recommendation=recommendation)
    retrain_and_rescore(user.pk)
    after = _topic_share(user, "stat.ME", refused)
    assert before >= 0.3 and after <= before / 2, (before, after)
    shown = {entry.paper.pk for entry in recommendations_for_user(user, 50)}
    assert not shown & refused


def test_dismissed_trail_cards_count_as_negatives(user, django_capture_on_commit_callbacks):
    harvest(record("2611.00001"), at=ago(days=2))
    follow_create(user=user, kind="author", value={"author": "Ada Lovelace"}, name="Ada")
    (item,) = cards(user)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        trail_dismiss(user=user, item_id=item.paper_id)
    assert len(queued) == 1, "a dismissal retrains"
    assert [paper.id for paper in user_examples(user, seed=0).negatives] == [item.paper_id]


def test_the_explanation_names_saved_papers_the_user_really_has(user):
    papers = store_real_papers()
    saved = topic(papers, "stat.ME")[:5]
    _save(user, saved)
    retrain_and_rescore(user.pk)
    entries = recommendations_for_user(user, 20)
    named = {n.arxiv_id for entry in entries for n in entry.neighbours}
    assert named and named <= {paper.arxiv_id for paper in saved}
    assert all(entry.terms for entry in entries)
    # A paper removed from the record is no longer given as a reason.
    gone = next(iter(named))
    Record.objects.filter(user=user, paper__arxiv_id=gone).delete()
    named_now = {n.arxiv_id for entry in recommendations_for_user(user, 20) for n in entry.neighbours}
    assert gone not in named_now


def test_no_model_below_the_minimum_of_saves(user, settings):
    settings.RECOMMEND_MIN_SAVES = 3
    papers = store_real_papers()
    _save(user, topic(papers, "stat.ME")[:2])
    assert retrain_and_rescore(user.pk).endswith("too few saves, no model")
    assert not RecommenderModel.objects.filter(user=user).exists()
    status = recommender_status(user)
    assert not status.ready and status.saves_missing == 1
    assert recommendations_for_user(user, 10) == []
    _save(user, topic(papers, "stat.ME")[2:3])
    retrain_and_rescore(user.pk)
    assert RecommenderModel.objects.filter(user=user, tag__isnull=True).count() == 1


def test_retraining_is_debounced(user, django_capture_on_commit_callbacks):
    papers = store_real_papers()
    with django_capture_on_commit_callbacks(execute=False) as queued:
        _save(user, topic(papers, "stat.ME")[:5])
        record_save(user=user, paper=papers[0], tags=["methods"])
    assert len(queued) == 1, "five saves and a tag queue one retraining"
    # Once the retraining starts, the next change queues another one.
    retrain_claimed(user.pk)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        Record.objects.filter(user=user, paper=papers[0]).delete()
    assert len(queued) == 1


def test_a_model_per_tag_when_asked(user):
    papers = store_real_papers()
    for paper in topic(papers, "stat.ME")[:4]:
        record_save(user=user, paper=paper, tags=["methods"])
    for paper in topic(papers, "cs.SE")[:4]:
        record_save(user=user, paper=paper, tags=["testing"])
    services.recommender_set_per_tag(user=user, per_tag=True)
    retrain_and_rescore(user.pk)
    tags = {row.tag.name: row.tag_id for row in RecommenderModel.objects.filter(user=user, tag__isnull=False)}
    assert set(tags) == {"methods", "testing"}
    testing = recommendations_for_user(user, 5, tag_id=tags["testing"])
    assert testing and all("cs.SE" in entry.paper.categories for entry in testing)


def test_new_versions_after_a_harvest_are_scored(user):
    papers = store_real_papers()
    stat = topic(papers, "stat.ME")
    _save(user, stat[:5])
    train_user(user, seed=0)
    assert not Recommendation.objects.filter(user=user).exists()
    # A harvest brings a new version of a stat.ME paper: it is scored for the user.
    record = next(r for r in real_records() if r.arxiv_id == stat[6].arxiv_id)
    record.versions.append(type(record.versions[0])(number=record.versions[-1].number + 1))
    result = paper_upsert_many(records=[record], now=ago(minutes=1))
    assert result.created_version_ids
    assert "1 papers scored" in score_new_versions(result.created_version_ids)
    assert list(Recommendation.objects.filter(user=user).values_list("paper__arxiv_id", flat=True)) == [
        stat[6].arxiv_id
    ]
