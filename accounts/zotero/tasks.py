"""Celery tasks of the Zotero sync: thin wrappers over one job each. A sync
that Zotero asked to slow down is scheduled again when the delay is over."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from accounts.zotero.linking import zotero_check_run, zotero_seed_run
from accounts.zotero.models import ZoteroLink
from accounts.zotero.sync import zotero_sync_run


@shared_task(name="accounts.zotero_check")
def zotero_check(link_id: int) -> str:
    """Check a newly given key and list the library's collections."""
    return zotero_check_run(link_id=link_id)


@shared_task(name="accounts.zotero_sync")
def zotero_sync(link_id: int) -> str:
    """Pull then push one linked collection."""
    result = zotero_sync_run(link_id=link_id)
    if result.retry_in is not None:
        zotero_sync.apply_async((link_id,), countdown=result.retry_in + 1)
    return result.summary()


@shared_task(name="accounts.zotero_sync_all")
def zotero_sync_all() -> str:
    """Beat: a sync of every link with a collection chosen."""
    due = Q(backoff_until__isnull=True) | Q(backoff_until__lte=timezone.now())
    ids = list(ZoteroLink.objects.exclude(collection_key="").filter(due).values_list("pk", flat=True))
    for link_id in ids:
        zotero_sync.apply_async((link_id,), expires=settings.ZOTERO_SYNC_MINUTES * 60)
    return f"{len(ids)} syncs queued"


@shared_task(name="accounts.zotero_seed")
def zotero_seed(link_id: int, collection_key: str) -> str:
    """Make a topic follow from a collection's arXiv papers."""
    return zotero_seed_run(link_id=link_id, collection_key=collection_key)
