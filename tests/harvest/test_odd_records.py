"""An odd record never stops a run: a value longer than any column, a missing
title, an unreadable date. Each case is fed, in the source's own recorded
markup, through OAI-PMH (a run, counted and shown on /sources/operator/), the snapshot
import and the announcement feed: a long text field is stored whole, a value
no column can hold is reported and its record skipped, and every other
record is stored."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from lxml import etree

from harvest.models import HarvestRun, Paper
from harvest.runs import harvest_source
from harvest.sources.arxiv_rss import DC, parse_feed
from tests.harvest import oai_pages
from tests.harvest.test_oai_harvest import oai_client, serve
from tests.replay_server import fixture_bytes

pytestmark = pytest.mark.django_db
KAGGLE = Path(__file__).parents[1] / "fixtures" / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
LONG_SUBMITTER = "Adrian Ahne (1 and 2), Vivek Khetan (3), " * 18  # 740 characters: a real submitter's shape
NOT_A_NAME = "A" * 600  # one "name" longer than any author's column


def test_an_oai_run_stores_long_text_whole_skips_what_no_column_holds_and_shows_the_count(client, replay_server):
    records = oai_pages.recorded_records()
    page = oai_pages.list_records_page(
        [
            records["0704.0471"],
            oai_pages.with_field(records["0704.0716"], "submitter", LONG_SUBMITTER),
            oai_pages.with_field(records["0704.0874"], "authors", NOT_A_NAME),
            oai_pages.with_field(records["0704.1109"], "title", None),
            oai_pages.malformed(records["0704.1114"]),
            records["0704.1586"],
        ],
        token=None,
    )
    serve(replay_server, page)
    run = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert run.status == HarvestRun.Status.OK
    assert (run.seen, run.new_papers, run.skipped) == (6, 3, 3)
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == {"0704.0471", "0704.0716", "0704.1586"}
    assert Paper.objects.get(arxiv_id="0704.0716").submitter == " ".join(LONG_SUBMITTER.split())
    client.force_login(get_user_model().objects.create_user("ops", is_staff=True))
    html = client.get("/sources/operator/").content.decode()  # the skipped count is the operators'
    assert 'data-skipped="3"' in html and "跳过 3 条记录" in html


def test_a_snapshot_import_skips_the_odd_lines_and_stores_the_rest(tmp_path):
    lines = KAGGLE.read_text(encoding="utf-8").splitlines()[:6]
    entries = [json.loads(line) for line in lines]
    entries[0]["submitter"] = LONG_SUBMITTER
    entries[1]["authors"], entries[1]["authors_parsed"] = NOT_A_NAME, [[NOT_A_NAME, "", ""]]
    entries[2]["versions"][0]["created"] = "Someday, 99 Foo 20x7"
    entries[3]["title"] = None
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(json.dumps(entry) for entry in entries) + "\n", encoding="utf-8")
    out = StringIO()
    call_command("import_snapshot", str(path), stdout=out, stderr=StringIO())
    stored = set(Paper.objects.values_list("arxiv_id", flat=True))
    assert stored == {entries[0]["id"], entries[4]["id"], entries[5]["id"]}
    assert Paper.objects.get(arxiv_id=entries[0]["id"]).submitter == " ".join(LONG_SUBMITTER.split())
    assert "3 malformed" in out.getvalue()


def test_the_announcement_feed_skips_an_item_no_column_holds_and_keeps_the_others():
    root = etree.fromstring(fixture_bytes("arxiv_rss/arxiv_rss_stat_2024-03-26_emanuelealiverti.xml"))
    items = root.findall("channel/item")
    items[0].find(f"{DC}creator").text = NOT_A_NAME
    feed = parse_feed(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    assert len(feed.malformed) == 1 and "an author name of 600 characters" in feed.malformed[0]
    assert len(feed.records) == len(items) - 1
    # Still listed: arXiv did announce it, and the completeness report says the library lacks it.
    assert len(feed.items) == len(items)
