"""Reactions to signals (connected in DigestsConfig.ready)."""

from __future__ import annotations

from django.dispatch import receiver

from digests.services import readings_create_for_versions
from digests.signals import reading_stored, readings_pending, upgrades_pending
from digests.tasks import embed_readings, readings_enqueue, upgrade_reading
from digests.upgrades import readings_mark_stale, readings_upgrade_for_versions, versions_ready
from harvest.signals import full_text_stored, versions_created


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


@receiver(full_text_stored, dispatch_uid="digests.full_text_stored")
def on_full_text_stored(sender, *, version_ids, **kwargs) -> None:
    """A version's full text was read: its abstract reading (and that of the
    revision after it, which waited for it) is written again from it, once;
    a full-text reading whose text it changed is marked stale and written again, once."""
    ready = versions_ready(version_ids)
    readings_upgrade_for_versions(version_ids=ready)
    readings_mark_stale(version_ids=ready)


@receiver(upgrades_pending, dispatch_uid="digests.upgrades_pending")
def on_upgrades_pending(sender, *, reading_ids, **kwargs) -> None:
    """Upgrades wait to be written: to the LLM queue, one task each."""
    for reading_id in reading_ids:
        upgrade_reading.delay(reading_id)
