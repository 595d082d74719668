"""The pull of a sync: what changed in Zotero since the library version the
last pull saw (`?since=`). Items of the collection come back as saved
papers, notes on the items in step as their records' notes, and an item
trashed there (`includeTrashed=1`) or deleted for good (`/deleted?since=`)
unsaves its paper; a change on both sides keeps the later and is reported."""

from __future__ import annotations

from accounts.records.models import Record
from accounts.records.selectors import with_tag_names
from accounts.records.services import record_remove, record_save
from accounts.zotero.client import ZoteroClient
from accounts.zotero.items import SKIPPED_TYPES, item_arxiv_id, item_tags_and_state, note_text
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport
from accounts.zotero.outcome import SyncResult, apply_theirs, changed_at, report, resolve
from harvest.models import Paper


def _gone(link: ZoteroLink, mine: ZoteroItem, record: Record | None, title: str, result: SyncResult) -> None:
    """The item was trashed or deleted in Zotero: the paper is unsaved here too, unless its
    record changed since the last sync (ours is later: written again as a new item, reported)."""
    mine.delete()
    if record is not None and mine.synced_updated_at and record.updated_at > mine.synced_updated_at:
        result.conflicts += 1
        result.reported += report(link, ZoteroReport.Kind.CONFLICT_OURS, mine.item_key, title)
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
        theirs_at = changed_at(data)
        if (
            row.synced_updated_at
            and record.updated_at > row.synced_updated_at
            and (theirs_at is None or record.updated_at > theirs_at)
        ):
            result.conflicts += 1
            result.reported += report(link, ZoteroReport.Kind.CONFLICT_OURS, key, row.paper.title)
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
                result.reported += report(link, ZoteroReport.Kind.CONFLICT_THEIRS, key, data.get("title", ""))
                apply_theirs(link, mine, data, item_version)
            elif mine.synced_updated_at and record.updated_at > mine.synced_updated_at:
                resolve(link, mine, record, item, result)
            else:
                apply_theirs(link, mine, data, item_version)
                result.pulled += 1
            continue
        arxiv_id = item_arxiv_id(data)
        if not arxiv_id:
            result.reported += report(link, ZoteroReport.Kind.NOT_ARXIV, key, data.get("title", ""))
            continue
        paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
        if paper is None:
            result.reported += report(link, ZoteroReport.Kind.NOT_IN_LIBRARY, key, data.get("title", ""))
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
