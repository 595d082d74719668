"""Deletions both ways, against the Zotero Web API stand-in: an item trashed
in Zotero (`deleted: 1`, read with `includeTrashed=1`) or deleted there for
good (`/deleted?since=`) unsaves the paper; a paper unsaved here has its
item trashed in Zotero at the version last seen (412 when changed there);
a deletion against a change on the other side is reported."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from accounts.records.selectors import record_get
from accounts.records.services import record_remove, record_save
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport
from accounts.zotero.sync import SyncResult, client_for, push, zotero_sync_run
from tests.accounts.zotero.conftest import arxiv_item, link_collection

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(user):
    user.language = "en"
    user.save(update_fields=["language"])


def synced(user, zotero, paper) -> tuple[ZoteroLink, str]:
    """A linked collection with one saved paper in step; its item key."""
    link = link_collection(user, zotero)
    record_save(user=user, paper=paper, tags=["privacy"])
    assert zotero_sync_run(link_id=link.pk).pushed == 1
    return ZoteroLink.objects.get(pk=link.pk), ZoteroItem.objects.get(link=link).item_key


def test_an_item_trashed_in_zotero_unsaves_the_paper_and_a_trashed_unknown_item_is_not_brought_back(
    user, zotero, papers
):
    link, key = synced(user, zotero, papers[0])
    stale = zotero.add_item(arxiv_item("2611.00102"), collection=link.collection_key)
    zotero.trash_item(stale, modified=timezone.now())
    zotero.trash_item(key, modified=timezone.now() + timedelta(minutes=1))
    zotero.requests.clear()
    result = zotero_sync_run(link_id=link.pk)
    assert (result.removed, result.pulled, result.error) == (1, 0, "")
    assert record_get(user=user, paper_id=papers[0].pk) is None
    assert record_get(user=user, paper_id=papers[1].pk) is None
    assert not ZoteroItem.objects.filter(link=link).exists()
    [read] = [r for r in zotero.requests if "/collections/" in r.path]
    assert read.query["includeTrashed"] == ["1"] and read.query["since"] == [str(link.library_version)]
    assert not [r for r in zotero.requests if r.method == "POST"]  # nothing written back


def test_an_item_deleted_for_good_in_zotero_is_read_from_deleted_since_and_unsaves_the_paper(user, zotero, papers):
    link, key = synced(user, zotero, papers[0])
    record_save(user=user, paper=papers[1])
    zotero_sync_run(link_id=link.pk)
    seen = ZoteroLink.objects.get(pk=link.pk).library_version
    zotero.delete_item(key)
    zotero.requests.clear()
    result = zotero_sync_run(link_id=link.pk)
    [deleted] = [r for r in zotero.requests if r.path.endswith("/deleted")]
    assert deleted.query["since"] == [str(seen)]
    assert result.removed == 1 and record_get(user=user, paper_id=papers[0].pk) is None
    assert record_get(user=user, paper_id=papers[1].pk) is not None  # the other paper stays
    zotero.requests.clear()
    again = zotero_sync_run(link_id=link.pk)
    assert (again.removed, again.pushed) == (0, 0)  # each deletion once


def test_deleted_in_zotero_but_changed_here_since_keeps_ours_as_a_new_item_and_reports_it(user, zotero, papers):
    link, key = synced(user, zotero, papers[0])
    zotero.delete_item(key)
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        record_save(user=user, paper=papers[0], state="read")
        result = zotero_sync_run(link_id=link.pk)
    assert (result.conflicts, result.pushed) == (1, 1)
    assert record_get(user=user, paper_id=papers[0].pk).state == "read"
    new_key = ZoteroItem.objects.get(link=link).item_key
    assert new_key != key and "papertrail:read" in {t["tag"] for t in zotero.items[new_key]["tags"]}
    assert dict(ZoteroReport.objects.filter(link=link).values_list("item_key", "kind")) == {key: "conflict_ours"}


def test_a_paper_unsaved_here_has_its_item_trashed_in_zotero_once_at_its_version(user, zotero, papers):
    link, key = synced(user, zotero, papers[0])
    version = zotero.items[key]["version"]
    record_remove(user=user, paper=papers[0])
    zotero.requests.clear()
    result = zotero_sync_run(link_id=link.pk)
    assert result.removed == 1
    [write] = [json.loads(r.body) for r in zotero.requests if r.method == "POST"]
    assert write == [{"key": key, "version": version, "deleted": 1}]
    assert zotero.items[key]["deleted"] == 1  # in Zotero's trash, recoverable there
    assert not ZoteroItem.objects.filter(link=link).exists()
    zotero.requests.clear()
    assert zotero_sync_run(link_id=link.pk).removed == 0
    assert not [r for r in zotero.requests if r.method == "POST"]


def test_unsaved_here_but_edited_in_zotero_since_comes_back_and_is_reported(user, zotero, papers):
    link, key = synced(user, zotero, papers[0])
    record_remove(user=user, paper=papers[0])
    later = timezone.now() + timedelta(minutes=1)
    zotero.edit_item(key, {"tags": [{"tag": "still reading"}]}, modified=later)
    with time_machine.travel(later, tick=False):
        result = zotero_sync_run(link_id=link.pk)
    assert (result.conflicts, result.removed) == (1, 0)
    assert record_get(user=user, paper_id=papers[0].pk).tag_names == ["still reading"]
    assert "deleted" not in zotero.items[key]
    assert ZoteroReport.objects.get(link=link, item_key=key).kind == "conflict_theirs"


def test_a_trash_write_that_meets_412_reads_the_item_and_keeps_zoteros_change(user, zotero, papers):
    link, key = synced(user, zotero, papers[0])
    record_remove(user=user, paper=papers[0])
    zotero.edit_item(key, {"tags": [{"tag": "kept"}]}, modified=timezone.now() + timedelta(minutes=1))
    zotero.requests.clear()
    result = SyncResult()
    push(link, client_for(link), result)  # no pull first: the trash write meets 412
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in zotero.requests][:2] == [("POST", "items"), ("GET", key)]
    assert result.conflicts == 1 and "deleted" not in zotero.items[key]
    assert record_get(user=user, paper_id=papers[0].pk).tag_names == ["kept"]
    assert ZoteroItem.objects.get(link=link).item_version == zotero.items[key]["version"]
