"""Saved papers are followed implicitly: a new version of a paper in someone's
research record lands in their trail as a revision, whatever their follows
say. It is the reader's own match, with no follow (the record is its reason);
the trail shows what changed since the version the reader last opened, under
the trail's card rules (a read card reopens for it, a dismissed one stays out)."""

from __future__ import annotations

from collections.abc import Iterable

from accounts.follows.types import REVISION, Hit, PaperFacts
from accounts.records.models import Record
from accounts.records.services import records_refresh_papers
from accounts.trail.services import reader_matches_add
from accounts.trail.types import TrailWriteResult

CHUNK = 1000


def record_revisions_to_trail(*, events: Iterable[PaperFacts]) -> TrailWriteResult:
    """The savers' own matches of a batch's events (the matcher's, one per
    paper) whose version is newer than the one their owner read (never
    opened: than v1)."""
    result = TrailWriteResult()
    latest = {event.paper_id: event for event in events if event.version_number > 1}
    papers = sorted(latest)
    for start in range(0, len(papers), CHUNK):
        chunk = papers[start : start + CHUNK]
        # The new version may change what /records/ filters and sorts by.
        records_refresh_papers(paper_ids=chunk)
        records = Record.objects.filter(paper_id__in=chunk).values_list("user_id", "paper_id", "last_read_version")
        hits = [
            Hit(user_id, None, paper_id, event.version_id, event.version_number, REVISION, event.event_at, {})
            for user_id, paper_id, read in records
            if (event := latest[paper_id]).version_number > (read or 1)
        ]
        result.add(reader_matches_add(hits=hits))
    return result
