"""The arXiv API source, through the `arxiv` package, against recorded replies."""

from __future__ import annotations

from datetime import datetime

import arxiv
import pytest
from lxml import etree

from harvest.models import HarvestRun, Paper
from harvest.runs import harvest_source
from harvest.sources.arxiv_api import ArxivApiSource, lookup_ids, records_from_atom
from harvest.sources.http import PermanentError, TransientError
from harvest.sources.registry import SOURCES
from harvest.text_repair import readable
from tests.harvest.arxiv_api_replay import PATH, body_of, serve_recorded
from tests.replay_server import Reply

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"


def entries(body: bytes) -> list[dict]:
    """What the raw Atom says, read independently of the code under test."""
    found = []
    for entry in etree.fromstring(body).iterfind(f"{ATOM}entry"):
        short = entry.findtext(f"{ATOM}id").split("/abs/")[1]
        arxiv_id, _, version = short.rpartition("v")
        found.append(
            {
                "id": arxiv_id,
                "version": int(version),
                "published": datetime.fromisoformat(entry.findtext(f"{ATOM}published").replace("Z", "+00:00")),
                "updated": datetime.fromisoformat(entry.findtext(f"{ATOM}updated").replace("Z", "+00:00")),
                "primary": entry.find(f"{ARXIV}primary_category").get("term"),
                "categories": [c.get("term") for c in entry.iterfind(f"{ATOM}category")],
                "authors": [a.findtext(f"{ATOM}name") for a in entry.iterfind(f"{ATOM}author")],
            }
        )
    return found


@pytest.fixture
def registered(monkeypatch) -> None:
    """The source's registry line (harvest/sources/registry.py); a no-op once it is there."""
    monkeypatch.setitem(SOURCES, ArxivApiSource.slug, ArxivApiSource)


@pytest.fixture
def api(settings, replay_server) -> str:
    settings.ARXIV_API_URL = serve_recorded(replay_server)
    return settings.ARXIV_API_URL


def test_records_from_atom_map_every_entry_of_a_recorded_page():
    body = body_of("q_testing_s0_m100_")
    expected = entries(body)

    records = records_from_atom(body)

    assert len(records) == len(expected) == 100
    assert sum(1 for e in expected if e["version"] > 1) == 36
    for record, entry in zip(records, expected, strict=True):
        assert record.arxiv_id == entry["id"]
        assert record.latest_version == entry["version"]
        assert record.published == entry["published"] and record.updated == entry["updated"]
        assert record.categories[0] == entry["primary"]
        assert set(record.categories) == set(entry["categories"]) | {entry["primary"]}
        # The recording's double-encoded names ("Aurora RamÃ\xadrez") come out repaired.
        assert record.authors == [" ".join(readable(name).split()) for name in entry["authors"]]
        [version] = record.versions
        assert version.number == entry["version"]
        assert version.submitted == (entry["published"] if entry["version"] == 1 else entry["updated"])
    repaired = {name for record in records for name in record.authors}
    assert {"Aurora Ramírez", "Betül Karagöz"} <= repaired
    assert not any("Ã" in name for name in repaired)


def test_records_from_atom_reads_old_style_and_versioned_ids():
    [record] = records_from_atom(body_of("id_quant-ph_0201082v1_"))
    assert record.arxiv_id == "quant-ph/0201082" and record.latest_version == 1

    [journal] = records_from_atom(body_of("id_astro-ph_0601001_"))
    assert journal.arxiv_id == "astro-ph/0601001" and journal.journal_ref


def test_records_from_atom_raises_on_the_api_error_feed_and_on_garbage():
    with pytest.raises(PermanentError, match="incorrect id format for abc"):
        records_from_atom(body_of("id_abc_"))
    with pytest.raises(PermanentError, match="unparsable"):
        records_from_atom(b"<<< not a feed")
    assert records_from_atom(body_of("id_0808.05394_s0_")) == []


def test_lookup_ids_asks_the_configured_api_politely(api, replay_server):
    [record] = lookup_ids(["1605.08386"])

    assert record.arxiv_id == "1605.08386"
    [request] = replay_server.requests_to(PATH)
    assert request.param("id_list") == "1605.08386"
    assert request.param("max_results") == "100"
    assert request.headers["User-Agent"].startswith("PaperTrail/")


def test_lookup_ids_leaves_out_ids_arxiv_does_not_know(api):
    records = lookup_ids(["0808.05394", "1707.08567"])
    assert [r.arxiv_id for r in records] == ["1707.08567"]
    assert lookup_ids(["0808.05394"]) == []


def test_a_refused_lookup_is_a_permanent_error_with_arxivs_message_and_is_not_retried(api, replay_server):
    with pytest.raises(PermanentError, match="HTTP 400: incorrect id format for abc") as caught:
        lookup_ids(["abc"])

    assert caught.value.status == 400
    assert len(replay_server.requests_to(PATH)) == 1


def test_server_errors_are_retried_then_transient(api, replay_server, settings):
    settings.ARXIV_API_RETRIES = 2
    replay_server.queue(PATH, *[Reply(status=503, body=b"busy", content_type="text/plain")] * 3)

    with pytest.raises(TransientError, match="HTTP 503 after 3 tries"):
        lookup_ids(["1605.08386"])
    assert len(replay_server.requests_to(PATH)) == 3


def test_a_server_error_then_a_good_reply_succeeds(api, replay_server):
    replay_server.queue(PATH, Reply(status=502, body=b"bad gateway", content_type="text/plain"))
    assert [r.arxiv_id for r in lookup_ids(["1707.08567"])] == ["1707.08567"]
    assert len(replay_server.requests_to(PATH)) == 2


def test_network_errors_are_transient(settings):
    settings.ARXIV_API_URL = "http://127.0.0.1:9/api/query"
    settings.ARXIV_API_RETRIES = 0
    with pytest.raises(TransientError, match="network error"):
        lookup_ids(["1605.08386"])


@pytest.mark.django_db
def test_a_check_pages_through_the_recorded_search_and_stores_what_the_api_knows(api, replay_server, registered):
    client = ArxivApiSource(query="testing", sort_by=arxiv.SortCriterion.Relevance, page_size=10, max_results=60)

    run = harvest_source(slug="arxiv_api", client=client)

    assert run.status == HarvestRun.Status.OK
    assert (run.pages, run.seen, run.new_papers) == (6, 60, 60)
    assert [r.param("start") for r in replay_server.requests_to(PATH)] == ["0", "10", "20", "30", "40", "50"]
    expected = entries(body_of("q_testing_s0_m100_"))[:60]
    stored = {p.arxiv_id: p for p in Paper.objects.prefetch_related("versions")}
    assert set(stored) == {e["id"] for e in expected}
    for entry in expected:
        paper = stored[entry["id"]]
        assert [v.number for v in paper.versions.all()] == [entry["version"]]
        assert paper.latest_version == entry["version"]
        assert paper.published == entry["published"] and paper.updated == entry["updated"]
        assert paper.primary_category == entry["primary"]

    again = harvest_source(slug="arxiv_api", client=client)
    assert again.status == HarvestRun.Status.EMPTY
    assert (again.new_papers, again.new_versions, again.unchanged) == (0, 0, 60)


@pytest.mark.django_db
def test_a_lookup_check_stores_the_papers_and_fails_honestly_on_a_refused_id(api, registered):
    run = harvest_source(slug="arxiv_api", client=ArxivApiSource(ids=["0808.05394", "1707.08567"]))

    assert run.status == HarvestRun.Status.OK
    assert (run.pages, run.new_papers) == (1, 1)
    [entry] = entries(body_of("id_1707.08567_"))
    paper = Paper.objects.get(arxiv_id="1707.08567")
    assert (paper.published, paper.updated, paper.latest_version) == (
        entry["published"],
        entry["updated"],
        entry["version"],
    )

    failed = harvest_source(slug="arxiv_api", client=ArxivApiSource(ids=["abc"]))
    assert failed.status == HarvestRun.Status.FAILED
    assert "incorrect id format for abc" in failed.error
    assert Paper.objects.count() == 1
