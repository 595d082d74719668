"""Signals that retrain or score: a record or its tags changed, in one row or
in bulk, or the reader dismissed cards (retrain, debounced), or a harvest
page's new versions have their embeddings (score: the embedding half needs them). Connected in AccountsConfig.ready."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from accounts.recommend import tasks
from accounts.recommend.services import schedule_retrain
from accounts.records.models import Record, RecordTag
from accounts.records.signals import records_changed
from accounts.trail.signals import cards_dismissed
from harvest.signals import versions_embedded


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
