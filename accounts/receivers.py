"""Reactions to other apps' signals (connected in AccountsConfig.ready)."""

from __future__ import annotations

from django.db import transaction
from django.dispatch import receiver

from harvest.signals import versions_created


@receiver(versions_created, dispatch_uid="accounts.versions_created")
def on_versions_created(sender, *, version_ids, **kwargs) -> None:
    """New versions were committed: match them against follows in a task,
    queued once the current transaction (if any) commits."""
    from accounts import tasks  # tasks import the matcher; keep app loading light

    ids = list(version_ids)
    if ids:
        transaction.on_commit(lambda: tasks.match_new_versions.delay(ids))
