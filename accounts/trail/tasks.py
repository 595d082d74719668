"""Celery tasks of the trail: thin wrappers over one service each."""

from __future__ import annotations

from celery import shared_task

from accounts.trail.definition_matches import prune_definition_matches
from accounts.trail.delivery import reader_chunks, trail_catch_up_users
from accounts.trail.matching import match_versions


@shared_task(name="accounts.match_new_versions")
def match_new_versions(version_ids: list[int]) -> str:
    """Match a harvest page's new versions against every follow definition,
    then queue the cards of every reader who may read them soon: reads only
    read, so a reader's cards are made here, not when the trail is opened."""
    result = match_versions(version_ids=version_ids)
    readers = _queue_deliveries() if result.hits else 0
    return (
        f"{result.hits} definition matches, {readers} readers' trails queued; saved papers: "
        f"{result.created} new cards, {result.updated} updated, {result.reopened} reopened"
    )


@shared_task(name="accounts.match_topic_versions")
def match_topic_versions(version_ids: list[int]) -> str:
    """Match a harvest page's new versions against every topic follow, once
    the embedding task has embedded their papers, and queue the deliveries."""
    result = match_versions(version_ids=version_ids, topics=True)
    readers = _queue_deliveries() if result.hits else 0
    return f"{result.hits} topic matches, {readers} readers' trails queued"


def _queue_deliveries() -> int:
    readers = 0
    for user_ids in reader_chunks():
        deliver_trails.delay(user_ids)
        readers += len(user_ids)
    return readers


@shared_task(name="accounts.deliver_trails")
def deliver_trails(user_ids: list[int]) -> str:
    """Make these users' cards from the matches recorded since their last delivery."""
    result = trail_catch_up_users(user_ids=user_ids)
    return f"{len(user_ids)} trails: {result.created} new cards, {result.updated} updated, {result.reopened} reopened"


@shared_task(name="accounts.prune_definition_matches")
def prune_definition_matches_task() -> str:
    """Drop follow definitions' matches past their retention."""
    return f"{prune_definition_matches()} definition matches dropped"
