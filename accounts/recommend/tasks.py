"""Celery tasks of recommendations: thin wrappers over one job each."""

from __future__ import annotations

from celery import shared_task

from accounts.recommend.jobs import retrain_and_rescore, score_new_versions


@shared_task(name="accounts.retrain_recommendations")
def retrain_recommendations(user_id: int) -> str:
    """Retrain one user's recommendation models and rescore the window's papers."""
    return retrain_and_rescore(user_id)


@shared_task(name="accounts.score_recommendations")
def score_recommendations(version_ids: list[int]) -> str:
    """Score a harvest page's new versions' papers for every user with a model."""
    return score_new_versions(version_ids)
