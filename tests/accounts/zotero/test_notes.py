"""Notes written in Zotero come back as the record's note, against the Zotero
Web API stand-in: read from the library's notes changed `?since=` the last
pull (`itemType=note`, a note being a child item), their HTML as plain
text, each once; a note changed on both sides keeps the later change."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from accounts.records.selectors import record_get
from accounts.records.services import record_save
from accounts.zotero.items import note_text
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport
from accounts.zotero.sync import zotero_sync_run
from tests.accounts.zotero.conftest import arxiv_item, link_collection

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(user):
    user.language = "en"
    user.save(update_fields=["language"])


def test_a_note_written_in_zotero_becomes_the_records_note_once(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0])
    zotero_sync_run(link_id=link.pk)
    item = ZoteroItem.objects.get(link=link)
    seen = ZoteroLink.objects.get(pk=link.pk).library_version
    stranger = zotero.add_item(arxiv_item("2611.00102"), collection=zotero.add_collection("Elsewhere"))
    zotero.add_note(stranger, "<p>not in step</p>", modified=timezone.now())
    note = zotero.add_note(
        item.item_key,
        "<p>Tight &amp; <b>clean</b> bound.</p><p>Check lemma 3.</p>",
        modified=timezone.now() + timedelta(minutes=1),
    )
    zotero.requests.clear()
    with time_machine.travel(timezone.now() + timedelta(minutes=1), tick=False):
        result = zotero_sync_run(link_id=link.pk)
    [read] = [r for r in zotero.requests if r.path.endswith("/items") and r.query.get("itemType") == ["note"]]
    assert read.query["since"] == [str(seen)] and read.query["includeTrashed"] == ["1"]
    assert (result.pulled, result.pushed, result.error) == (1, 0, "")
    assert record_get(user=user, paper_id=papers[0].pk).note == "Tight & clean bound.\nCheck lemma 3."
    assert record_get(user=user, paper_id=papers[1].pk) is None
    assert ZoteroItem.objects.get(link=link).note_key == note
    zotero.requests.clear()
    again = zotero_sync_run(link_id=link.pk)
    assert (again.pulled, again.pushed) == (0, 0)
    assert not [r for r in zotero.requests if r.method == "POST"]  # not written back


def test_our_note_edited_in_zotero_comes_back_and_a_later_edit_here_is_written_at_its_version(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0], note="First thought.")
    zotero_sync_run(link_id=link.pk)
    row = ZoteroItem.objects.get(link=link)
    start = timezone.now()
    zotero.edit_item(row.note_key, {"note": "<p>First thought, revised in Zotero.</p>"}, modified=start)
    with time_machine.travel(start + timedelta(minutes=1), tick=False):
        zotero_sync_run(link_id=link.pk)
    assert record_get(user=user, paper_id=papers[0].pk).note == "First thought, revised in Zotero."
    with time_machine.travel(start + timedelta(minutes=2), tick=False):
        record_save(user=user, paper=papers[0], note="Third thought.")
        zotero.requests.clear()
        result = zotero_sync_run(link_id=link.pk)
    assert (result.conflicts, result.error) == (0, "")
    [note_write] = [json.loads(r.body) for r in zotero.requests if r.method == "POST" and "note" in r.body.decode()]
    assert note_write[0]["key"] == row.note_key and "Third thought." in zotero.items[row.note_key]["note"]


def test_a_note_changed_on_both_sides_keeps_the_later_and_reports_it(user, zotero, papers):
    link = link_collection(user, zotero)
    record_save(user=user, paper=papers[0], note="Ours.")
    zotero_sync_run(link_id=link.pk)
    row = ZoteroItem.objects.get(link=link)
    start = timezone.now()
    zotero.edit_item(row.note_key, {"note": "<p>Theirs.</p>"}, modified=start + timedelta(minutes=1))
    with time_machine.travel(start + timedelta(minutes=2), tick=False):
        record_save(user=user, paper=papers[0], note="Ours, later.")
    with time_machine.travel(start + timedelta(minutes=3), tick=False):
        result = zotero_sync_run(link_id=link.pk)
    assert result.conflicts == 1 and result.error == ""
    assert record_get(user=user, paper_id=papers[0].pk).note == "Ours, later."
    assert "Ours, later." in zotero.items[row.note_key]["note"]
    assert ZoteroReport.objects.get(link=link).kind == "conflict_ours"


def test_note_text_keeps_one_line_per_block_and_no_markup():
    html = '<div data-schema-version="9"><h1>Summary</h1><p>a&lt;b<br/>c</p><ul><li>x</li><li>y</li></ul></div>'
    assert note_text(html) == "Summary\na<b\nc\nx\ny"
