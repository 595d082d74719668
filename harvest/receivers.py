"""Harvest's own reactions to its signals (connected in HarvestConfig.ready)."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import receiver

from harvest import tasks
from harvest.signals import versions_created


@receiver(versions_created, dispatch_uid="harvest.embed_new_versions")
def on_versions_created(sender, *, version_ids, **kwargs) -> None:
    """A page committed: its papers are embedded by the `embed` queue's task."""
    ids = list(version_ids)
    if ids:
        transaction.on_commit(lambda: tasks.embed_papers_task.delay(ids))
