"""The research record kept in step with a Zotero collection, against a
stand-in of Zotero's Web API: pushes as preprints with tags, state and
notes, each change once; pulls by `?since=`; conflicts kept by the later
change and reported; 429 and Backoff honoured without sleeping."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.utils import timezone

from accounts.records.models import Record
from accounts.records.selectors import record_get
from accounts.records.services import record_save
from accounts.shared.secrets import decrypt_secret
from accounts.zotero.client import ZoteroClient
from accounts.zotero.linking import zotero_check_run
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport
from accounts.zotero.services import zotero_collection_choose, zotero_link_set
from accounts.zotero.sync import SyncResult, client_for, push, zotero_sync_run
from tests.accounts.zotero.conftest import arxiv_item, book_item, link_collection
from tests.accounts.zotero.zotero_standin import ZoteroStandIn

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(user):
    """Messages the jobs store are in the owner's language: English here."""
    user.language = "en"
    user.save(update_fields=["language"])


def tags_of(item: dict) -> set[str]:
    return {entry["tag"] for entry in item["tags"]}


def test_linking_stores_the_key_encrypted_and_lists_collections_with_the_key_in_a_header(user, zotero):
    zotero.add_collection("Reading group")
    link = zotero_link_set(user=user, library_type="user", library_id=str(zotero.library_id), api_key=zotero.api_key)
    stored = ZoteroLink.objects.values_list("api_key", flat=True).get(pk=link.pk)
    assert zotero.api_key not in stored and decrypt_secret(stored) == zotero.api_key
    assert zotero_check_run(link_id=link.pk) == "1 collections"
    assert [name for _key, name in ZoteroLink.objects.get(pk=link.pk).collections] == ["Reading group"]
    assert [r.path for r in zotero.requests] == ["/keys/current", f"/users/{zotero.library_id}/collections"]
    assert all(
        zotero.api_key not in r.path and r.headers["Authorization"] == f"Bearer {zotero.api_key}"
        for r in zotero.requests
    )


def test_a_key_that_may_not_write_or_is_refused_is_reported_in_words(user, zotero):
    zotero.write_access = False
    link = zotero_link_set(user=user, library_type="user", library_id=zotero.library_id, api_key=zotero.api_key)
    zotero_check_run(link_id=link.pk)
    assert "write access" in ZoteroLink.objects.get(pk=link.pk).last_error
    link = zotero_link_set(user=user, library_type="user", library_id=zotero.library_id, api_key="wrongKey123")
    zotero_check_run(link_id=link.pk)
    error = ZoteroLink.objects.get(pk=link.pk).last_error
    assert "Code: 403" in error and "wrongKey123" not in error


def test_push_writes_each_saved_paper_as_a_preprint_with_tags_state_and_note_once(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0], state="reading", tags=["privacy", "to cite"], note="A **strong** bound.")
    result = zotero_sync_run(link_id=link.pk)
    assert (result.pushed, result.error) == (1, "")
    [item] = [i for i in zotero.in_collection(link.collection_key) if i["itemType"] == "preprint"]
    assert item["archiveID"] == "arXiv:2611.00101" and item["extra"] == "arXiv:2611.00101"
    assert item["DOI"] == "10.48550/arXiv.2611.00101" and item["url"] == "https://arxiv.org/abs/2611.00101"
    assert item["repository"] == "arXiv" and item["title"] == "Private learning 0"
    assert item["creators"][1] == {"creatorType": "author", "firstName": "Laurens", "lastName": "van der Maaten"}
    assert tags_of(item) == {"privacy", "to cite", "papertrail:reading"}
    [note] = zotero.children(item["key"])
    assert note["itemType"] == "note" and "<strong>strong</strong>" in note["note"]

    writes, version = len(zotero.writes()), item["version"]
    zotero_sync_run(link_id=link.pk)
    assert len(zotero.writes()) == writes  # nothing changed, nothing written

    record_save(user=user, paper=papers[0], state="read")
    zotero_sync_run(link_id=link.pk)
    update = zotero.writes()[writes]
    assert update[0]["key"] == item["key"] and update[0]["version"] == version
    assert "collections" not in update[0]  # a partial update: the item's other collections stay
    assert "papertrail:read" in tags_of(zotero.items[item["key"]])


def test_pull_brings_back_arxiv_items_and_reports_the_others_then_reads_only_what_changed(user, zotero, papers):
    link = link_collection(user, zotero)
    zotero.add_item(arxiv_item("2611.00102", tags=["from zotero", "papertrail:read"]), collection=link.collection_key)
    zotero.add_item(arxiv_item("2611.00103", via="extra"), collection=link.collection_key)
    book = zotero.add_item(book_item(), collection=link.collection_key)
    elsewhere = zotero.add_item(arxiv_item("2611.09999", via="DOI"), collection=link.collection_key)
    result = zotero_sync_run(link_id=link.pk)
    assert result.pulled == 2
    pulled = record_get(user=user, paper_id=papers[1].pk)
    assert pulled.state == Record.State.READ and pulled.tag_names == ["from zotero"]
    assert record_get(user=user, paper_id=papers[2].pk) is not None
    reports = dict(ZoteroReport.objects.filter(link=link).values_list("item_key", "kind"))
    assert reports == {book: "not_arxiv", elsewhere: "not_in_library"}
    assert ZoteroItem.objects.filter(link=link).count() == 2

    seen = ZoteroLink.objects.get(pk=link.pk).library_version
    assert seen == zotero.version
    zotero.requests.clear()
    zotero_sync_run(link_id=link.pk)
    [read] = [r for r in zotero.requests if "/collections/" in r.path and r.method == "GET"]
    assert read.query["since"] == [str(seen)]
    assert ZoteroReport.objects.filter(link=link).count() == 2  # reported once


def test_push_then_pull_round_trip_keeps_both_sides_in_step(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0], tags=["privacy"])
    zotero_sync_run(link_id=link.pk)
    [key] = ZoteroItem.objects.filter(link=link).values_list("item_key", flat=True)
    later = timezone.now() + timedelta(minutes=5)
    with time_machine.travel(later, tick=False):
        zotero.edit_item(key, {"tags": [{"tag": "privacy"}, {"tag": "dp"}, {"tag": "papertrail:read"}]}, modified=later)
        result = zotero_sync_run(link_id=link.pk)
    assert (result.pulled, result.pushed, result.conflicts) == (1, 0, 0)
    record = record_get(user=user, paper_id=papers[0].pk)
    assert record.tag_names == ["dp", "privacy"] and record.state == "read"
    writes = len(zotero.writes())
    zotero_sync_run(link_id=link.pk)
    assert len(zotero.writes()) == writes  # what came from Zotero is not written back


def test_a_conflict_keeps_the_later_change_and_is_reported(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0], tags=["privacy"])
    record_save(user=user, paper=papers[1], tags=["privacy"])
    zotero_sync_run(link_id=link.pk)
    keys = dict(ZoteroItem.objects.filter(link=link).values_list("paper_id", "item_key"))
    start = timezone.now()
    # Paper 0: changed in Zotero, then here (ours is later). Paper 1: here, then in Zotero.
    zotero.edit_item(keys[papers[0].pk], {"tags": [{"tag": "theirs"}]}, modified=start + timedelta(minutes=1))
    with time_machine.travel(start + timedelta(minutes=2), tick=False):
        record_save(user=user, paper=papers[0], state="read")
        record_save(user=user, paper=papers[1], state="read")
    zotero.edit_item(keys[papers[1].pk], {"tags": [{"tag": "zotero wins"}]}, modified=start + timedelta(minutes=3))
    with time_machine.travel(start + timedelta(minutes=4), tick=False):
        result = zotero_sync_run(link_id=link.pk)
    assert result.conflicts == 2
    assert tags_of(zotero.items[keys[papers[0].pk]]) == {"privacy", "papertrail:read"}
    assert record_get(user=user, paper_id=papers[1].pk).tag_names == ["zotero wins"]
    kinds = dict(ZoteroReport.objects.filter(link=link).values_list("item_key", "kind"))
    assert kinds == {keys[papers[0].pk]: "conflict_ours", keys[papers[1].pk]: "conflict_theirs"}


def test_a_412_on_write_reads_the_item_and_writes_again_when_ours_is_later(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0])
    zotero_sync_run(link_id=link.pk)
    [key] = ZoteroItem.objects.filter(link=link).values_list("item_key", flat=True)
    start = timezone.now()
    zotero.edit_item(key, {"title": "Edited in Zotero"}, modified=start + timedelta(minutes=1))
    with time_machine.travel(start + timedelta(minutes=2), tick=False):
        record_save(user=user, paper=papers[0], state="reading")
        zotero.requests.clear()
        result = SyncResult()
        push(ZoteroLink.objects.get(pk=link.pk), client_for(link), result)  # no pull first: the write meets 412
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in zotero.requests] == [
        ("POST", "items"),
        ("GET", key),
        ("POST", "items"),
    ]
    assert result.conflicts == 1 and "papertrail:reading" in tags_of(zotero.items[key])
    assert ZoteroItem.objects.get(link=link).item_version == zotero.items[key]["version"]


def test_429_and_backoff_stop_the_run_until_the_delay_is_over_without_sleeping(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0])
    zotero.throttle = [{"Retry-After": "30"}]
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        result = zotero_sync_run(link_id=link.pk)
    assert result.retry_in == 30 and result.error == ""
    assert ZoteroLink.objects.get(pk=link.pk).backoff_until == start + timedelta(seconds=30)
    zotero.requests.clear()
    with time_machine.travel(start + timedelta(seconds=10), tick=False):
        assert zotero_sync_run(link_id=link.pk).retry_in == 20
    assert zotero.requests == []  # nothing asked while Zotero said wait
    zotero.backoff_next = "45"
    with time_machine.travel(start + timedelta(seconds=31), tick=False):
        result = zotero_sync_run(link_id=link.pk)
    assert result.retry_in == 45  # a Backoff header on a success: this run stops after its step
    with time_machine.travel(start + timedelta(seconds=80), tick=False):
        result = zotero_sync_run(link_id=link.pk)
    assert result.retry_in is None and result.pushed == 1
    assert ZoteroLink.objects.get(pk=link.pk).backoff_until is None


def test_a_failure_is_recorded_in_words_and_the_key_never_in_it(user, zotero, papers):
    link = link_collection(user, zotero)
    zotero.api_key = "anotherKey999"  # the key was revoked in Zotero
    result = zotero_sync_run(link_id=link.pk)
    link.refresh_from_db()
    assert result.error and link.last_error.startswith("Code: 403") and link.last_error_at is not None
    assert decrypt_secret(link.api_key) not in link.last_error


def test_the_client_pages_through_a_collection(user, zotero, papers):
    key = zotero.add_collection("Big")
    for n in range(130):
        zotero.add_item({"itemType": "book", "title": f"Book {n}"}, collection=key)
    client = ZoteroClient(library_type="user", library_id=zotero.library_id, api_key=zotero.api_key)
    first = client.collection_items(key)
    second = client.collection_items(key, start=len(first.items))
    assert (len(first.items), len(second.items), first.total) == (100, 30, 130)


def test_one_run_of_a_link_at_a_time(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0])
    zotero.requests.clear()
    cache.add(f"zotero-sync-{link.pk}", 1, timeout=60)  # a run of this link in another worker
    try:
        result = zotero_sync_run(link_id=link.pk)
    finally:
        cache.delete(f"zotero-sync-{link.pk}")
    assert result.error == "another sync of this link is running" and zotero.requests == []
    assert zotero_sync_run(link_id=link.pk).pushed == 1


@pytest.fixture
def group_zotero(settings):
    standin = ZoteroStandIn(library_id=5012345, library_type="group").start()
    settings.ZOTERO_API_URL = standin.url
    yield standin
    standin.stop()


def test_a_group_library_is_checked_by_its_group_rights_and_kept_in_step(user, group_zotero, papers):
    zotero = group_zotero
    key = zotero.add_collection("Lab reading")
    zotero.add_item(arxiv_item("2611.00102"), collection=key)
    zotero.write_access = False
    link = zotero_link_set(user=user, library_type="group", library_id=zotero.library_id, api_key=zotero.api_key)
    zotero_check_run(link_id=link.pk)
    assert "write access" in ZoteroLink.objects.get(pk=link.pk).last_error  # access.groups.<id>.write
    zotero.write_access = True
    assert zotero_check_run(link_id=link.pk) == "1 collections"
    zotero_collection_choose(user=user, collection_key=key)
    record_save(user=user, paper=papers[0], tags=["lab"])
    result = zotero_sync_run(link_id=link.pk)
    assert (result.pulled, result.pushed, result.error) == (1, 1, "")
    assert record_get(user=user, paper_id=papers[1].pk) is not None
    assert {r.path.split("/")[1] for r in zotero.requests if r.path != "/keys/current"} == {"groups"}
    assert {i["archiveID"] for i in zotero.in_collection(key) if "archiveID" in i} == {"arXiv:2611.00101"}
