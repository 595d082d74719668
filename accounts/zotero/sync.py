"""One sync of a linked collection: pull what changed in Zotero since the
library version the last pull saw (`?since=`), then push each saved paper
whose record changed since it was last in step. Each object is written
with the version it was read at, so a change made in Zotero meanwhile fails
that object with 412; a conflict, found by the pull or by a 412, keeps the
later change (the record's `updated_at` against the item's `dateModified`)
and is reported to the researcher (ZoteroReport). Deletions go both ways:
an item trashed in Zotero or deleted there for good (`/deleted?since=`)
unsaves the paper, and an unsaved paper's item goes to Zotero's trash. A
429 or a Backoff header stops the run; the task runs it again when the
delay is over."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.records.models import Record
from accounts.records.selectors import with_tag_names
from accounts.shared.secrets import SecretsUnavailable
from accounts.zotero.client import WRITE_BATCH, ZoteroBackoff, ZoteroClient, ZoteroError
from accounts.zotero.items import note_item, paper_item
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport
from accounts.zotero.outcome import SyncResult, apply_theirs, client_for, report, resolve
from accounts.zotero.pull import pull

__all__ = ["SyncResult", "client_for", "pull", "push", "zotero_sync_run"]

logger = logging.getLogger(__name__)
# One run of a link at a time: two would both create the items of new records.
# Longer than any run (a request times out after 30 s; a run is a few dozen).
LOCK_SECONDS = 15 * 60


def _pending(link: ZoteroLink) -> list[tuple[Record, ZoteroItem | None]]:
    items = {row.paper_id: row for row in ZoteroItem.objects.filter(link=link)}
    pending = []
    for record in with_tag_names(Record.objects.filter(user=link.user).select_related("paper").order_by("id")):
        mine = items.get(record.paper_id)
        if mine is None or mine.synced_updated_at is None or record.updated_at > mine.synced_updated_at:
            pending.append((record, mine))
    return pending


def _object(link: ZoteroLink, record: Record, mine: ZoteroItem | None) -> dict:
    body = paper_item(paper=record.paper, record=record, tag_names=record.tag_names, collection_key=link.collection_key)
    if mine is not None:
        # An update is a partial one (as PATCH): the item's other collections stay.
        body.pop("collections")
        body.update(key=mine.item_key, version=mine.item_version)
    return body


def _write(link: ZoteroLink, client: ZoteroClient, batch: list[tuple[Record, ZoteroItem | None]], result: SyncResult):
    """Write one batch; the records whose object failed with 412."""
    answer = client.write([_object(link, record, mine) for record, mine in batch])
    conflicted = []
    for index, (record, mine) in enumerate(batch):
        done = answer.get("successful", {}).get(str(index))
        if done is not None:
            ZoteroItem.objects.update_or_create(
                link=link,
                paper_id=record.paper_id,
                defaults={
                    "item_key": done["key"],
                    "item_version": done["version"],
                    "synced_updated_at": record.updated_at,
                },
            )
            result.pushed += 1
        elif str(index) in answer.get("unchanged", {}):
            ZoteroItem.objects.filter(pk=mine.pk).update(synced_updated_at=record.updated_at)
        elif (failed := answer.get("failed", {}).get(str(index))) is not None:
            if failed.get("code") == 412 and mine is not None:
                conflicted.append((record, mine))
            else:
                result.notes.append(str(failed.get("message", ""))[:200])
    return conflicted


def _push_notes(link: ZoteroLink, client: ZoteroClient, records: list[Record]) -> None:
    rows = {
        row.paper_id: row for row in ZoteroItem.objects.filter(link=link, paper_id__in=[r.paper_id for r in records])
    }
    wanted = [(r, rows[r.paper_id]) for r in records if r.note.strip() and r.paper_id in rows]
    if not wanted:
        return
    objects = []
    for record, row in wanted:
        body = note_item(record=record, parent_key=row.item_key)
        if row.note_key:
            body.update(key=row.note_key, version=row.note_version)
        objects.append(body)
    answer = client.write(objects)
    for index, (_record, row) in enumerate(wanted):
        done = answer.get("successful", {}).get(str(index))
        if done is not None:
            ZoteroItem.objects.filter(pk=row.pk).update(note_key=done["key"], note_version=done["version"])


def push_removals(link: ZoteroLink, client: ZoteroClient, result: SyncResult) -> None:
    """The items of papers unsaved here go to Zotero's trash (recoverable there), each at
    the version last seen: one changed there meanwhile fails with 412 and comes back."""
    saved = Record.objects.filter(user=link.user).values("paper_id")
    gone = list(ZoteroItem.objects.filter(link=link).exclude(paper_id__in=saved).select_related("paper"))
    for start in range(0, len(gone), WRITE_BATCH):
        batch = gone[start : start + WRITE_BATCH]
        answer = client.write([{"key": row.item_key, "version": row.item_version, "deleted": 1} for row in batch])
        for index, row in enumerate(batch):
            failed = answer.get("failed", {}).get(str(index))
            if failed is None:
                row.delete()
                result.removed += 1
            elif failed.get("code") == 412:
                item = client.item(row.item_key)
                if item["data"].get("deleted"):
                    row.delete()  # trashed there too
                    result.removed += 1
                    continue
                result.conflicts += 1
                result.reported += report(
                    link, ZoteroReport.Kind.CONFLICT_THEIRS, row.item_key, item["data"].get("title", "")
                )
                apply_theirs(link, row, item["data"], item["version"])
            else:
                result.notes.append(str(failed.get("message", ""))[:200])
        if client.backoff_seconds:
            return


def push(link: ZoteroLink, client: ZoteroClient, result: SyncResult) -> None:
    push_removals(link, client, result)
    if client.backoff_seconds:
        return
    pending = _pending(link)
    for start in range(0, len(pending), WRITE_BATCH):
        batch = pending[start : start + WRITE_BATCH]
        conflicted = _write(link, client, batch, result)
        retry = []
        for record, mine in conflicted:
            if resolve(link, mine, record, client.item(mine.item_key), result):
                retry.append((record, mine))
        if retry:
            _write(link, client, retry, result)
        _push_notes(link, client, [record for record, _mine in batch])
        if client.backoff_seconds:
            return


def zotero_sync_run(*, link_id: int) -> SyncResult:
    """Pull then push one linked collection; failures are recorded on the link in words."""
    result = SyncResult()
    link = ZoteroLink.objects.select_related("user").filter(pk=link_id).first()
    if link is None or not link.collection_key:
        result.error = "no collection chosen"
        return result
    now = timezone.now()
    if link.backoff_until and link.backoff_until > now:
        result.retry_in = (link.backoff_until - now).total_seconds()
        return result
    lock = f"zotero-sync-{link.pk}"
    if not cache.add(lock, 1, timeout=LOCK_SECONDS):
        result.error = "another sync of this link is running"
        return result
    try:
        _run(link, result)
    finally:
        cache.delete(lock)
    _record_outcome(link, result, now)
    logger.info("zotero sync of link %d: %s", link.pk, result.summary())
    return result


def _run(link: ZoteroLink, result: SyncResult) -> None:
    try:
        client = client_for(link)
        with transaction.atomic():
            pull(link, client, result)
        # Not one transaction: what Zotero stored must stay recorded if a later batch fails.
        push(link, client, result)
    except ZoteroBackoff as backoff:
        result.retry_in = backoff.seconds
    except (ZoteroError, SecretsUnavailable) as error:
        result.error = str(error)
    else:
        if client.backoff_seconds:
            result.retry_in = client.backoff_seconds


def _record_outcome(link: ZoteroLink, result: SyncResult, now: datetime) -> None:
    fields: dict = {"backoff_until": now + timedelta(seconds=result.retry_in) if result.retry_in else None}
    if result.error:
        fields.update(last_error=result.error, last_error_at=now)
    elif result.retry_in is None:
        fields.update(last_synced_at=now, last_error="", last_error_at=None)
    ZoteroLink.objects.filter(pk=link.pk).update(**fields)
