"""Research records' reactions to the trail's signals (connected in
AccountsConfig.ready): saved papers are followed implicitly."""

from __future__ import annotations

from django.db.models import Exists, OuterRef, QuerySet
from django.dispatch import receiver

from accounts.records.models import Record
from accounts.records.revisions import record_revisions_to_trail
from accounts.trail.lock import TrailWriteResult
from accounts.trail.models import TrailItem
from accounts.trail.signals import versions_matched
from accounts.trail.writers import register_card_keeper


@receiver(versions_matched, dispatch_uid="records.versions_matched")
def on_versions_matched(sender, *, events, **kwargs) -> TrailWriteResult:
    """A batch's revisions of saved papers, into their savers' trails;
    counted as cards only (the matcher's hits are the follows')."""
    written = record_revisions_to_trail(events=events)
    written.hits = written.skipped = 0
    return written


def keep_saved_papers(cards: QuerySet[TrailItem]) -> QuerySet[TrailItem]:
    """A saved paper's card stays in the trail without a follow's reason: the
    record is its reason."""
    return cards.exclude(Exists(Record.objects.filter(user=OuterRef("user_id"), paper=OuterRef("paper_id"))))


register_card_keeper(keep_saved_papers)
