"""Imports of reference managers' files and pasted lists: matching by arXiv
id, DOI and title, lookups on the (replayed, recorded) arXiv API for papers
the library lacks, tags, idempotence and the errors a user is told."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from django.utils import translation

from accounts.records.files.bibtex import _DECODER, decode
from accounts.records.imports import (
    ADDED,
    MATCHED,
    UNMATCHED,
    RecordImportError,
    records_import_file,
    records_import_ids,
)
from accounts.records.models import Record, RecordTag, Tag
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import harvest
from tests.factories import record
from tests.harvest.arxiv_api_replay import PATH, serve_recorded

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    """The reasons are written in the active language; these tests read English."""
    with translation.override("en"):
        yield


FIXTURES = Path(__file__).parents[2] / "fixtures" / "records"
UBER = "Über die Berechenbarkeit großer Sprachmodelle"


@pytest.fixture
def api(settings, replay_server) -> str:
    settings.ARXIV_API_URL = serve_recorded(replay_server)
    return settings.ARXIV_API_URL


@pytest.fixture
def library(db):
    harvest(
        record("2611.00001", title="Attention at Scale: Sparse Mixtures for Long Contexts", versions=2),
        record("2611.00002", title="Graph Kernels for über-large Networks"),
        replace(record("2611.00003", title=UBER, authors=["Jürgen Müller"]), doi="10.1145/3600000.3600001"),
        record("hep-th/9901001", title="String theory and noncommutative geometry", authors=["Edward Witten"]),
    )


def _state(user) -> list:
    return [
        list(Record.objects.filter(user=user).order_by("pk").values()),
        list(RecordTag.objects.filter(user=user).order_by("pk").values()),
        list(Tag.objects.filter(user=user).order_by("pk").values()),
        Paper.objects.count(),
    ]


def _tags(user, arxiv_id: str) -> set[str]:
    return set(
        RecordTag.objects.filter(user=user, record__paper__arxiv_id=arxiv_id).values_list("tag__name", flat=True)
    )


@pytest.mark.parametrize("name", ["zotero.bib", "zotero.ris"])
def test_a_zotero_export_is_matched_looked_up_tagged_and_importing_it_again_changes_nothing(
    name, user, library, api, replay_server
):
    data = (FIXTURES / name).read_bytes()

    result = records_import_file(user=user, data=data, filename=name)

    assert result.format == ("bibtex" if name.endswith("bib") else "ris")
    outcomes = {entry.arxiv_id or entry.label: entry.outcome for entry in result.entries}
    assert outcomes["1605.08386"] == ADDED
    assert outcomes["2611.00001"] == MATCHED
    assert outcomes["2611.00003"] == MATCHED
    [book] = result.of(UNMATCHED)
    assert "The Art of Computer Programming" in (book.title or book.label) or book.label.startswith("knuth")
    assert "no arXiv id or DOI" in book.reason
    reasons = {entry.arxiv_id: entry.reason for entry in result.entries if entry.arxiv_id}
    assert reasons["2611.00003"].startswith("DOI 10.1145/3600000.3600001")
    assert reasons["2611.00001"].startswith("arXiv id 2611.00001")
    assert "looked up on arXiv and added" in reasons["1605.08386"]
    # The paper arXiv returned went through the harvest's own upsert.
    added = Paper.objects.get(arxiv_id="1605.08386")
    assert added.title == "Heat-bath random walks with Markov bases" and added.authors[0] == "Caprice Stanley"
    [request] = replay_server.requests_to(PATH)
    assert request.param("id_list") == "1605.08386" and request.headers["User-Agent"].startswith("PaperTrail/")
    assert set(Record.objects.filter(user=user).values_list("paper__arxiv_id", flat=True)) == {
        "1605.08386",
        "2611.00001",
        "2611.00003",
    }
    assert {"to-read", "Mathematics - Combinatorics"} <= _tags(user, "1605.08386")
    assert "transformers" in _tags(user, "2611.00001") and _tags(user, "2611.00003") == {"transformers"}
    assert result.saved == 3

    before = _state(user)
    again = records_import_file(user=user, data=data, filename=name)

    assert _state(user) == before
    assert again.saved == 0 and again.count(ADDED) == 0 and again.count(MATCHED) == 3
    assert all(entry.reason.endswith("already saved") for entry in again.of(MATCHED))
    assert len(replay_server.requests_to(PATH)) == 1  # nothing left to look up


def test_tricky_bibtex_entries_are_read_and_the_broken_one_is_reported(user, library):
    result = records_import_file(user=user, data=(FIXTURES / "tricky.bib").read_bytes(), filename="tricky.bib")

    by_paper = {entry.arxiv_id: entry for entry in result.entries if entry.outcome == MATCHED}
    # Google Scholar's journal field, both entries under one key, `and others`, no year.
    assert by_paper["2611.00001"].label == by_paper["2611.00002"].label == "lovelace2026attention"
    # Mendeley's eprint with a version on an old-style id; its tags from mendeley-tags and keywords.
    assert by_paper["hep-th/9901001"].reason.startswith("arXiv id hep-th/9901001")
    assert _tags(user, "hep-th/9901001") == {"strings", "classics"}
    # {\"U}ber ... gro{\ss}er: matched by its title alone.
    assert by_paper["2611.00003"].reason.startswith("title")
    unmatched = {entry.label: entry.reason for entry in result.of(UNMATCHED)}
    assert unmatched["notinlibrary"] == "no arXiv id or DOI, and no library paper has this title"
    [broken] = [label for label in unmatched if label.startswith("line ")]
    assert "@inproceedings{broken2024" in broken and unmatched[broken].startswith("malformed entry")
    assert Record.objects.filter(user=user).count() == 4


def test_existing_records_keep_their_state_and_tags_and_gain_the_files(user, library):
    paper = Paper.objects.get(arxiv_id="hep-th/9901001")
    record_save(user=user, paper=paper, state="read", tags=["mine"], note="kept")

    records_import_file(user=user, data=(FIXTURES / "tricky.bib").read_bytes())

    mine = Record.objects.get(user=user, paper=paper)
    assert mine.state == "read" and mine.note == "kept"
    assert _tags(user, "hep-th/9901001") == {"mine", "strings", "classics"}


def test_a_pasted_list_of_ids_urls_and_dois(user, library, api):
    result = records_import_ids(
        user=user,
        ids=[
            "2611.00001v2",
            "https://arxiv.org/abs/hep-th/9901001",
            "https://doi.org/10.1145/3600000.3600001",
            "arXiv:0808.05394",
            "1707.08567",
            "not-an-id",
        ],
    )

    outcomes = {entry.label: (entry.outcome, entry.reason) for entry in result.entries}
    assert outcomes["2611.00001v2"][0] == MATCHED
    assert outcomes["https://arxiv.org/abs/hep-th/9901001"][0] == MATCHED
    assert outcomes["https://doi.org/10.1145/3600000.3600001"][0] == MATCHED
    assert outcomes["1707.08567"][0] == ADDED
    assert outcomes["arXiv:0808.05394"] == (UNMATCHED, "arXiv id 0808.05394: arXiv does not know this paper")
    assert outcomes["not-an-id"] == (UNMATCHED, "malformed entry: not an arXiv id, an arXiv URL or a DOI")
    assert Record.objects.filter(user=user).count() == 4


def test_lookups_past_the_limit_are_reported_not_asked(user, library, api, replay_server, settings):
    settings.RECORDS_IMPORT_MAX_LOOKUPS = 0

    result = records_import_ids(user=user, ids=["1605.08386"])

    [entry] = result.entries
    assert entry.outcome == UNMATCHED and "limit of arXiv lookups" in entry.reason
    assert replay_server.requests_to(PATH) == []


def test_an_arxiv_that_cannot_be_reached_leaves_the_rest_imported(user, library, settings):
    settings.ARXIV_API_URL = "http://127.0.0.1:9/api/query"  # nothing listens on the discard port
    settings.ARXIV_API_RETRIES = 0

    result = records_import_ids(user=user, ids=["1605.08386", "2611.00001"])

    outcomes = {entry.label: entry for entry in result.entries}
    assert outcomes["2611.00001"].outcome == MATCHED
    reason = outcomes["1605.08386"].reason
    assert outcomes["1605.08386"].outcome == UNMATCHED and "arXiv could not be reached just now" in reason
    assert "Connection" not in reason and "127.0.0.1" not in reason  # the exception is for the log


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text"),
        (b"   \n", "the file is empty"),
        (b"<html><body>Hello</body></html>", "not a BibTeX, RIS or CSL-JSON file"),
        (b'[{"title": ', "not valid JSON"),
    ],
)
def test_a_file_of_the_wrong_kind_gets_a_clear_message(user, data, message):
    with pytest.raises(RecordImportError, match=message) as caught:
        records_import_file(user=user, data=data)
    assert caught.value.field == "file"


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(user, settings):
    settings.RECORDS_IMPORT_MAX_BYTES = 1024
    with pytest.raises(RecordImportError, match="the limit is 1,024 bytes"):
        records_import_file(user=user, data=b"2611.00001\n" * 200)


def test_csl_json_items_are_matched_and_their_keywords_become_tags(user, library):
    data = (
        b'[{"id": "a", "type": "article", "title": "x", "number": "arXiv:2611.00002", "keyword": "graphs, kernels"},'
        b' {"id": "b", "type": "article-journal", "DOI": "10.1145/3600000.3600001"}, 17]'
    )

    result = records_import_file(user=user, data=data, filename="zotero.json")

    assert result.format == "csljson"
    assert [(entry.label, entry.outcome) for entry in result.entries] == [
        ("a", MATCHED),
        ("b", MATCHED),
        ("item 3", UNMATCHED),
    ]
    assert _tags(user, "2611.00002") == {"graphs", "kernels"}


@pytest.mark.parametrize(
    "value", ["The {B}ig {U}ber-model", "{{Attention}} at {Scale}", "plain words, and more", "{pLSTM}: a {Linear} net"]
)
def test_plain_fields_read_as_pylatexenc_reads_them(value):

    assert decode(value) == " ".join(_DECODER.latex_to_text(value).split())
