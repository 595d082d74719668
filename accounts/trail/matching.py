"""Matching a harvest's new versions: every follow definition once, its
matches stored (accounts.trail.definition_matches), over the batch's index
that follows builds (accounts.follows.selectors.day_index)."""

from __future__ import annotations

from collections.abc import Iterable

from accounts.follows.selectors import day_index
from accounts.trail.definition_matches import record_definition_matches
from accounts.trail.signals import versions_matched
from accounts.trail.types import TrailWriteResult

__all__ = ["day_index", "match_versions"]


def match_versions(*, version_ids: Iterable[int], topics: bool = False) -> TrailWriteResult:
    """Match new versions against every unmuted follow: each follow
    definition once, its matches recorded for the readers' trails (`hits`
    counts those matches); and the revisions of saved papers, into the
    savers' trails. Topic follows are matched apart (`topics`), once the
    batch's papers have their embeddings."""
    index = day_index(version_ids)
    if not index.papers:
        return TrailWriteResult()
    if topics:
        return TrailWriteResult(hits=record_definition_matches(index, topics=True))
    result = TrailWriteResult(hits=record_definition_matches(index))
    # Other cards a batch brings (saved papers' revisions, accounts.records)
    # are written by their owners' receivers.
    for _, written in versions_matched.send(sender=TrailWriteResult, events=index.papers):
        if written is not None:
            result.add(written)
    return result
