"""Research records' reactions to the trail's signals (connected in
AccountsConfig.ready): saved papers are followed implicitly."""

from __future__ import annotations

from django.dispatch import receiver

from accounts.records.revisions import record_revisions_to_trail
from accounts.trail.signals import versions_matched
from accounts.trail.types import TrailWriteResult


@receiver(versions_matched, dispatch_uid="records.versions_matched")
def on_versions_matched(sender, *, events, **kwargs) -> TrailWriteResult:
    """A batch's revisions of saved papers, into their savers' trails;
    counted as cards only (the matcher's hits are the follows')."""
    written = record_revisions_to_trail(events=events)
    written.hits = written.skipped = 0
    return written
