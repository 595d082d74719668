"""Research records' reactions to the trail's signals (connected in
AccountsConfig.ready): saved papers are followed implicitly."""

from __future__ import annotations

from django.dispatch import receiver

from accounts.records.revisions import record_revisions_to_trail
from accounts.records.selectors import saved_paper_ids
from accounts.trail.signals import versions_matched
from accounts.trail.types import TrailWriteResult
from harvest.fulltext.models import FullText
from harvest.fulltext.services import request_latest_full_texts
from harvest.signals import full_texts_wanted


@receiver(versions_matched, dispatch_uid="records.versions_matched")
def on_versions_matched(sender, *, events, **kwargs) -> TrailWriteResult:
    """A batch's revisions of saved papers, into their savers' trails;
    counted as cards only (the matcher's hits are the follows')."""
    written = record_revisions_to_trail(events=events)
    written.hits = written.skipped = 0
    return written


@receiver(full_texts_wanted, dispatch_uid="records.full_texts_wanted")
def on_full_texts_wanted(sender, *, now, **kwargs) -> int:
    """The full text of every saved paper's latest version (a version read
    or failed before is not fetched again)."""
    return request_latest_full_texts(paper_ids=saved_paper_ids(), reason=FullText.Reason.SAVED, now=now)
