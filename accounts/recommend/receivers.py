"""Signals that retrain or score: a record or its tags changed (retrain,
debounced; trail dismissals call schedule_retrain from accounts.trail, whose
updates send no signal), or a harvest committed new versions (score).
Connected in AccountsConfig.ready."""

from __future__ import annotations

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from accounts.models import Record, RecordTag
from accounts.recommend.services import schedule_retrain
from harvest.signals import versions_created


@receiver(post_save, sender=Record, dispatch_uid="recommend.record_saved")
@receiver(post_delete, sender=Record, dispatch_uid="recommend.record_deleted")
@receiver(post_save, sender=RecordTag, dispatch_uid="recommend.recordtag_saved")
@receiver(post_delete, sender=RecordTag, dispatch_uid="recommend.recordtag_deleted")
def on_record_changed(sender, instance, **kwargs) -> None:
    schedule_retrain(instance.user_id)


@receiver(versions_created, dispatch_uid="recommend.versions_created")
def on_versions_created(sender, *, version_ids, **kwargs) -> None:
    """Score the new versions' papers for every model once the page commits."""
    from accounts import tasks

    ids = list(version_ids)
    if ids:
        transaction.on_commit(lambda: tasks.score_recommendations.delay(ids))
