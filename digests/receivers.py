"""Reactions to signals (connected in DigestsConfig.ready)."""

from __future__ import annotations

from django.dispatch import receiver

from digests.services import readings_create_for_versions
from digests.signals import reading_stored, readings_pending
from digests.tasks import embed_readings, readings_enqueue
from harvest.signals import versions_created


@receiver(versions_created, dispatch_uid="digests.versions_created")
def on_versions_created(sender, *, version_ids, **kwargs) -> None:
    """New versions were committed: pending readings for those in scope, work
    enqueued after this transaction commits."""
    readings_create_for_versions(version_ids=version_ids)


@receiver(readings_pending, dispatch_uid="digests.readings_pending")
def on_readings_pending(sender, *, reading_ids, **kwargs) -> None:
    """Readings wait to be written: to the LLM queue."""
    readings_enqueue(reading_ids)


@receiver(reading_stored, dispatch_uid="digests.reading_stored")
def on_reading_stored(sender, *, reading_id, **kwargs) -> None:
    """A reading was written: its paper's reading vector on the embed queue."""
    embed_readings.delay([reading_id])
