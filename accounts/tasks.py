"""Celery tasks for follows: thin wrappers over one service each."""

from __future__ import annotations

from celery import shared_task

from accounts.follow_matching import match_versions


@shared_task(name="accounts.match_new_versions")
def match_new_versions(version_ids: list[int]) -> str:
    """Match a harvest page's new versions against every follow."""
    result = match_versions(version_ids=version_ids)
    return f"{result.hits} matches: {result.created} new cards, {result.updated} updated, {result.reopened} reopened"
