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
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.records.models import Record
from accounts.records.selectors import with_tag_names
from accounts.records.services import record_remove, record_save
from accounts.shared.secrets import SecretsUnavailable, decrypt_secret
from accounts.zotero.client import WRITE_BATCH, ZoteroBackoff, ZoteroClient, ZoteroError
from accounts.zotero.items import (
    SKIPPED_TYPES,
    item_arxiv_id,
    item_tags_and_state,
    note_item,
    note_text,
    paper_item,
)
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport
from harvest.models import Paper

logger = logging.getLogger(__name__)
# One run of a link at a time: two would both create the items of new records.
# Longer than any run (a request times out after 30 s; a run is a few dozen).
LOCK_SECONDS = 15 * 60


@dataclass
class SyncResult:
    pulled: int = 0
    pushed: int = 0
    conflicts: int = 0
    removed: int = 0
    reported: int = 0
    retry_in: float | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = (
            f"pulled {self.pulled}, pushed {self.pushed}, removed {self.removed}, "
            f"conflicts {self.conflicts}, reported {self.reported}"
        )
        if self.retry_in is not None:
            text += f", again in {self.retry_in:.0f} s"
        return f"{text}; failed: {self.error}" if self.error else text


def client_for(link: ZoteroLink) -> ZoteroClient:
    return ZoteroClient(
        library_type=link.library_type, library_id=link.library_id, api_key=decrypt_secret(link.api_key)
    )


def _report(link: ZoteroLink, kind: str, key: str, title: str) -> int:
    _report_row, created = ZoteroReport.objects.get_or_create(
        link=link, item_key=key, kind=kind, defaults={"title": title[:500]}
    )
    return int(created)


def _changed_at(data: dict) -> datetime | None:
    return parse_datetime(data.get("dateModified") or "")


def _apply_theirs(link: ZoteroLink, mine: ZoteroItem, data: dict, version: int) -> None:
    tags, state = item_tags_and_state(data)
    record, _created = record_save(user=link.user, paper=mine.paper, state=state, tags=tags)
    mine.item_version, mine.synced_updated_at = version, record.updated_at
    mine.save(update_fields=["item_version", "synced_updated_at"])


def _resolve(link: ZoteroLink, mine: ZoteroItem, record: Record | None, item: dict, result: SyncResult) -> bool:
    """A change on both sides: the later wins. True when ours does (the
    caller writes it at the item's current version)."""
    data, version = item["data"], item["version"]
    theirs_at = _changed_at(data)
    ours_wins = record is not None and (theirs_at is None or record.updated_at > theirs_at)
    result.conflicts += 1
    title = data.get("title", "")
    if ours_wins:
        mine.item_version = version
        mine.save(update_fields=["item_version"])
        result.reported += _report(link, ZoteroReport.Kind.CONFLICT_OURS, mine.item_key, title)
        return True
    _apply_theirs(link, mine, data, version)
    result.reported += _report(link, ZoteroReport.Kind.CONFLICT_THEIRS, mine.item_key, title)
    return False


def _gone(link: ZoteroLink, mine: ZoteroItem, record: Record | None, title: str, result: SyncResult) -> None:
    """The item was trashed or deleted in Zotero: the paper is unsaved here too, unless its
    record changed since the last sync (ours is later: written again as a new item, reported)."""
    mine.delete()
    if record is not None and mine.synced_updated_at and record.updated_at > mine.synced_updated_at:
        result.conflicts += 1
        result.reported += _report(link, ZoteroReport.Kind.CONFLICT_OURS, mine.item_key, title)
        return
    if record is not None:
        record_remove(user=link.user, paper=mine.paper)
    result.removed += 1


def _pull_deleted(link: ZoteroLink, client: ZoteroClient, known: dict[str, ZoteroItem], records, result) -> None:
    keys = client.deleted_item_keys(since=link.library_version)
    for key in keys & known.keys():
        mine = known.pop(key)
        _gone(link, mine, records.get(mine.paper_id), "", result)
    # A note deleted there: a later change of the record's note makes a new one.
    ZoteroItem.objects.filter(link=link, note_key__in=keys).update(note_key="", note_version=0)


def _pull_notes(link: ZoteroLink, client: ZoteroClient, result: SyncResult) -> None:
    """Notes written in Zotero on the items in step: the record's note (one note per item;
    a trashed one empties it), the later change kept as for the item."""
    rows = {row.item_key: row for row in ZoteroItem.objects.filter(link=link).select_related("paper")}
    notes, _version = _pages(lambda start: client.notes(since=link.library_version, start=start))
    for note in notes:
        data, key, version = note["data"], note["key"], note["version"]
        row = rows.get(data.get("parentItem") or "")
        if row is None or (row.note_key and key != row.note_key) or version <= row.note_version:
            continue  # not ours, a second note of that item, or our own write coming back
        record = Record.objects.filter(user=link.user, paper_id=row.paper_id).first()
        if record is None:
            continue
        theirs_at = _changed_at(data)
        if (
            row.synced_updated_at
            and record.updated_at > row.synced_updated_at
            and (theirs_at is None or record.updated_at > theirs_at)
        ):
            result.conflicts += 1
            result.reported += _report(link, ZoteroReport.Kind.CONFLICT_OURS, key, row.paper.title)
            row.note_key, row.note_version = key, version  # ours is written over it at this version
            row.save(update_fields=["note_key", "note_version"])
            continue
        text = "" if data.get("deleted") else note_text(data.get("note", ""))
        record, _created = record_save(user=link.user, paper=row.paper, note=text)
        row.note_key, row.note_version, row.synced_updated_at = key, version, record.updated_at
        if data.get("deleted"):
            row.note_key, row.note_version = "", 0  # a later note here makes a new one
        row.save(update_fields=["note_key", "note_version", "synced_updated_at"])
        result.pulled += 1


def _pages(read) -> tuple[list[dict], int]:
    """Every page of a read (`read(start)`), and the version of its first page."""
    items, start, version = [], 0, 0
    while True:
        page = read(start)
        version = version or page.version  # the version of the first page: later changes come next time
        items += page.items
        start += len(page.items)
        if not page.items or start >= page.total:
            return items, version


def _pull_items(link: ZoteroLink, client: ZoteroClient) -> tuple[list[dict], int]:
    return _pages(
        lambda start: client.collection_items(
            link.collection_key, since=link.library_version, start=start, trashed=True
        )
    )


def pull(link: ZoteroLink, client: ZoteroClient, result: SyncResult) -> None:
    items, version = _pull_items(link, client)
    known = {row.item_key: row for row in ZoteroItem.objects.filter(link=link).select_related("paper")}
    records = {r.paper_id: r for r in Record.objects.filter(user=link.user)}
    for item in items:
        data, key, item_version = item["data"], item["key"], item["version"]
        if data.get("itemType") in SKIPPED_TYPES:
            continue
        mine = known.get(key)
        if data.get("deleted"):
            if mine is not None and item_version > mine.item_version:
                _gone(link, known.pop(key), records.get(mine.paper_id), data.get("title", ""), result)
            continue  # an item in Zotero's trash is not brought back
        if mine is not None:
            if item_version <= mine.item_version:
                continue  # our own write coming back
            record = records.get(mine.paper_id)
            if record is None:
                # Unsaved here, changed there since: a deletion has no time to compare, Zotero's edit is kept.
                result.conflicts += 1
                result.reported += _report(link, ZoteroReport.Kind.CONFLICT_THEIRS, key, data.get("title", ""))
                _apply_theirs(link, mine, data, item_version)
            elif mine.synced_updated_at and record.updated_at > mine.synced_updated_at:
                _resolve(link, mine, record, item, result)
            else:
                _apply_theirs(link, mine, data, item_version)
                result.pulled += 1
            continue
        arxiv_id = item_arxiv_id(data)
        if not arxiv_id:
            result.reported += _report(link, ZoteroReport.Kind.NOT_ARXIV, key, data.get("title", ""))
            continue
        paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
        if paper is None:
            result.reported += _report(link, ZoteroReport.Kind.NOT_IN_LIBRARY, key, data.get("title", ""))
            continue
        if ZoteroItem.objects.filter(link=link, paper=paper).exists():
            continue  # a second item of a paper already in step
        tags, state = item_tags_and_state(data)
        existing = with_tag_names(Record.objects.filter(user=link.user, paper=paper))
        if existing:
            tags = [*existing[0].tag_names, *tags]
        record, _created = record_save(user=link.user, paper=paper, state=state, tags=tags)
        ZoteroItem.objects.create(
            link=link, paper=paper, item_key=key, item_version=item_version, synced_updated_at=record.updated_at
        )
        result.pulled += 1
    if link.library_version:
        _pull_deleted(link, client, known, records, result)
    _pull_notes(link, client, result)
    ZoteroLink.objects.filter(pk=link.pk).update(library_version=max(version, link.library_version))
    link.library_version = max(version, link.library_version)


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
                result.reported += _report(
                    link, ZoteroReport.Kind.CONFLICT_THEIRS, row.item_key, item["data"].get("title", "")
                )
                _apply_theirs(link, row, item["data"], item["version"])
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
            if _resolve(link, mine, record, client.item(mine.item_key), result):
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
