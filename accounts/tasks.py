"""Celery tasks for follows: thin wrappers over one service each."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task

from accounts.follow_matching import match_versions
from accounts.trail_delivery import digest_reader_chunks, trail_catch_up_users


@shared_task(name="accounts.match_new_versions")
def match_new_versions(version_ids: list[int]) -> str:
    """Match a harvest page's new versions against every follow definition,
    then queue the cards of readers who get digests: the mail should not wait
    for thousands of trails to be made at sending time."""
    result = match_versions(version_ids=version_ids)
    readers = 0
    if result.hits:
        for user_ids in digest_reader_chunks():
            deliver_trails.delay(user_ids)
            readers += len(user_ids)
    return (
        f"{result.hits} definition matches, {readers} digest readers' trails queued; saved papers: "
        f"{result.created} new cards, {result.updated} updated, {result.reopened} reopened"
    )


@shared_task(name="accounts.deliver_trails")
def deliver_trails(user_ids: list[int]) -> str:
    """Make these users' cards from the matches recorded since their last read."""
    result = trail_catch_up_users(user_ids=user_ids)
    return f"{len(user_ids)} trails: {result.created} new cards, {result.updated} updated, {result.reopened} reopened"


@shared_task(name="accounts.prune_definition_matches")
def prune_definition_matches_task() -> str:
    """Drop follow definitions' matches past their retention."""
    from accounts.definition_matches import prune_definition_matches

    return f"{prune_definition_matches()} definition matches dropped"


@shared_task(name="accounts.send_alerts")
def send_alerts_task() -> str:
    """The beat's run after an announcement: daily and weekly digests, then
    a later run for any transient failure (its own retry time)."""
    from accounts.alerts import FREQUENCIES, next_retry_at, send_alerts

    summaries = [send_alerts(frequency=frequency).summary() for frequency in FREQUENCIES]
    _queue_retry(next_retry_at())
    return "; ".join(summaries)


@shared_task(name="accounts.retry_alerts")
def retry_alerts_task() -> str:
    from accounts.alerts import next_retry_at, retry_due_alerts

    run = retry_due_alerts()
    _queue_retry(next_retry_at())
    return run.summary()


def _queue_retry(at) -> None:
    if at is not None:
        retry_alerts_task.apply_async(eta=at, expires=at + timedelta(hours=6))


@shared_task(name="accounts.retrain_recommendations")
def retrain_recommendations(user_id: int) -> str:
    """Retrain one user's recommendation models and rescore the window's papers."""
    from accounts.recommend.jobs import retrain_and_rescore

    return retrain_and_rescore(user_id)


@shared_task(name="accounts.score_recommendations")
def score_recommendations(version_ids: list[int]) -> str:
    """Score a harvest page's new versions' papers for every user with a model."""
    from accounts.recommend.jobs import score_new_versions

    return score_new_versions(version_ids)
