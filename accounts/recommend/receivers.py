"""Signals that retrain or score: a record or its tags changed, in one row or
in bulk, or the reader dismissed cards (retrain, debounced), or a harvest
page's new versions have their embeddings (score: the embedding half needs them). Connected in AccountsConfig.ready."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from accounts.recommend import tasks
from accounts.recommend.selectors import for_you_top_paper_ids
from accounts.recommend.services import schedule_retrain
from accounts.records.models import Record, RecordTag
from accounts.records.signals import records_changed
from accounts.trail.signals import cards_dismissed
from harvest.fulltext.models import FullText
from harvest.fulltext.services import request_latest_full_texts
from harvest.signals import full_texts_wanted, versions_embedded


@receiver(post_save, sender=Record, dispatch_uid="recommend.record_saved")
@receiver(post_delete, sender=Record, dispatch_uid="recommend.record_deleted")
@receiver(post_save, sender=RecordTag, dispatch_uid="recommend.recordtag_saved")
@receiver(post_delete, sender=RecordTag, dispatch_uid="recommend.recordtag_deleted")
def on_record_changed(sender, instance, **kwargs) -> None:
    schedule_retrain(instance.user_id)


@receiver(records_changed, dispatch_uid="recommend.records_changed")
@receiver(cards_dismissed, dispatch_uid="recommend.cards_dismissed")
def on_examples_changed(sender, *, user_id, **kwargs) -> None:
    """Bulk record writes and dismissals send no model signals: their own."""
    schedule_retrain(user_id)


@receiver(versions_embedded, dispatch_uid="recommend.versions_embedded")
def on_versions_embedded(sender, *, version_ids, **kwargs) -> None:
    """Score the new versions' papers for every active model once the page is embedded."""
    ids = list(version_ids)
    if ids:
        transaction.on_commit(lambda: tasks.score_recommendations.delay(ids))


# A researcher is active when they signed in within this many days.
ACTIVE_DAYS = 14


@receiver(full_texts_wanted, dispatch_uid="recommend.full_texts_wanted")
def on_full_texts_wanted(sender, *, for_you, now, **kwargs) -> int:
    """The top `for_you` of each active researcher's "for you" list."""
    papers = for_you_top_paper_ids(active_since=now - timedelta(days=ACTIVE_DAYS), per_user=for_you)
    return request_latest_full_texts(paper_ids=papers, reason=FullText.Reason.FOR_YOU, now=now)
