"""Celery tasks of the trail: thin wrappers over one service each."""

from __future__ import annotations

from celery import shared_task

from accounts.trail.definition_matches import prune_definition_matches
from accounts.trail.matching import match_versions
from accounts.trail.readers import trail_pruned
from accounts.trail.services import prune_reader_matches


@shared_task(name="accounts.match_new_versions")
def match_new_versions(version_ids: list[int]) -> str:
    """Match a harvest page's new versions against every follow definition:
    each reader's trail is composed from these matches when read."""
    result = match_versions(version_ids=version_ids)
    return f"{result.hits} definition matches; saved papers: {result.created} revisions in their savers' trails"


@shared_task(name="accounts.match_topic_versions")
def match_topic_versions(version_ids: list[int]) -> str:
    """Match a harvest page's new versions against every topic follow, once
    the embedding task has embedded their papers."""
    result = match_versions(version_ids=version_ids, topics=True)
    return f"{result.hits} topic matches"


@shared_task(name="accounts.prune_definition_matches")
def prune_definition_matches_task() -> str:
    """Drop follow definitions' matches, and readers' own, past their retention."""
    definitions, own = prune_definition_matches(), prune_reader_matches()
    trail_pruned()
    return f"{definitions} definition matches and {own} readers' own dropped"
