"""Exports of a research record, each parsed back by a real reader
(bibtexparser with pylatexenc, rispy, the CSL-JSON schema through jsonschema)
and compared field by field with the library's papers."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser import middlewares
from pylatexenc.latex2text import LatexNodes2Text

from accounts.follows.services import exclusion_create, follow_create
from accounts.records.export import export_citations, export_data, export_items, tag_get
from accounts.records.models import Record
from accounts.records.services import record_save
from harvest.models import Paper
from tests.accounts.conftest import harvest
from tests.factories import record

pytestmark = pytest.mark.django_db

SCHEMA = json.loads((Path(__file__).parents[2] / "fixtures" / "records" / "csl-data.json").read_text())
TRICKY_TITLE = r"Sparse & Dense: 50% of $O(n^{2})$ #1 {braced} under_score ~ tilde \ back $5"
TRICKY_AUTHORS = ["Yann LeCun", "Jürgen Müller", "Laurens van der Maaten", "Ben and Jerry Collaboration", "Plato"]


def _papers():
    first = datetime(2026, 3, 2, tzinfo=UTC)
    harvest(
        replace(
            record(
                "2611.00001",
                title=TRICKY_TITLE,
                authors=TRICKY_AUTHORS,
                categories=["cs.LG", "stat.ML"],
                versions=2,
                first_submitted=first,
            ),
            doi="10.1145/3600000.3600001 10.5555/second",
        ),
        record("2611.00002", title="Deep learning of the deep", authors=["Yann LeCun"], first_submitted=first),
        record("2611.00003", title="Deep nets, again", authors=["Yann LeCun"], first_submitted=first),
        record(
            "hep-th/9901001",
            title="On strings",
            authors=["Edward Witten"],
            categories=["hep-th"],
            first_submitted=datetime(1999, 1, 4, tzinfo=UTC),
        ),
    )
    return {paper.arxiv_id: paper for paper in Paper.objects.all()}


@pytest.fixture
def saved(user):
    papers = _papers()
    record_save(user=user, paper=papers["2611.00001"], state="reading", tags=["RL", "Über tags"], note="mine")
    for arxiv_id in ("2611.00002", "2611.00003", "hep-th/9901001"):
        record_save(user=user, paper=papers[arxiv_id], tags=["deep"] if "2611" in arxiv_id else [])
    return papers


def _decode(value: str) -> str:
    return " ".join(LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True).latex_to_text(value).split())


def test_bibtex_is_arxivs_misc_and_every_field_reads_back(user, saved):
    text = export_citations(user=user, format="bibtex")
    library = bibtexparser.parse_string(text, append_middleware=[middlewares.SeparateCoAuthors()])

    assert library.failed_blocks == []
    entries = {entry["eprint"]: entry for entry in library.entries}
    assert set(entries) == {"2611.00001", "2611.00002", "2611.00003", "hep-th/9901001"}
    for arxiv_id, entry in entries.items():
        paper = saved[arxiv_id]
        assert entry.entry_type == "misc"
        assert _decode(entry["title"]) == paper.title
        assert [_decode(name).strip("{}") for name in entry["author"]] == paper.authors
        assert entry["year"] == str(paper.updated.year)
        assert entry["archivePrefix"] == "arXiv"
        assert entry["primaryClass"] == paper.categories[0]
        assert entry["url"] == f"https://arxiv.org/abs/{arxiv_id}"
    tricky = entries["2611.00001"]
    assert tricky["doi"] == "10.1145/3600000.3600001"
    assert "doi" not in entries["2611.00002"].fields_dict
    assert [part.strip() for part in _decode(tricky["keywords"]).split(",")] == ["RL", "Über tags"]
    # The TeX specials are escaped, the math kept, the UTF-8 left alone.
    assert r"Sparse \& Dense: 50\% of $O(n^{2})$ \#1 \{braced\} under\_score" in text
    assert "Jürgen Müller" in text and "{Ben and Jerry Collaboration}" in text
    # Keys as arXiv makes them, unique across the file.
    keys = [entry.key for entry in library.entries]
    assert len(set(keys)) == len(keys) == 4
    assert {"lecun2026deep", "lecun2026deepa", "witten1999strings"} <= set(keys)


def test_bibtex_field_order_and_layout_follow_arxivs_export(user, saved):
    text = export_citations(user=user, format="bibtex", arxiv_ids=["hep-th/9901001"])
    assert text == (
        "@misc{witten1999strings,\n"
        "      title={On strings},\n"
        "      author={Edward Witten},\n"
        "      year={1999},\n"
        "      eprint={hep-th/9901001},\n"
        "      archivePrefix={arXiv},\n"
        "      primaryClass={hep-th},\n"
        "      url={https://arxiv.org/abs/hep-th/9901001},\n"
        "}\n"
    )


def test_ris_reads_back_with_rispy(user, saved):
    entries = rispy.loads(export_citations(user=user, format="ris"))

    by_id = {entry["accession_number"].removeprefix("arXiv:"): entry for entry in entries}
    assert set(by_id) == set(saved)
    for arxiv_id, entry in by_id.items():
        paper = saved[arxiv_id]
        assert entry["type_of_reference"] == "UNPB"
        assert entry["title"] == paper.title
        assert entry["abstract"] == paper.abstract
        assert entry["year"] == str(paper.updated.year)
        assert entry["date"] == paper.published.strftime("%Y/%m/%d")
        assert entry["publisher"] == "arXiv"
        assert entry["urls"] == [f"https://arxiv.org/abs/{arxiv_id}"]
    assert by_id["2611.00001"]["authors"] == [
        "LeCun, Yann",
        "Müller, Jürgen",
        "van der Maaten, Laurens",
        "Collaboration, Ben and Jerry",
        "Plato",
    ]
    assert by_id["2611.00001"]["doi"] == "10.1145/3600000.3600001"
    assert by_id["2611.00001"]["keywords"] == ["RL", "Über tags"]
    assert "doi" not in by_id["2611.00002"]
    assert len({entry["id"] for entry in entries}) == 4


def test_csl_json_is_valid_against_the_csl_schema_and_reads_back(user, saved):
    items = json.loads(export_citations(user=user, format="csljson"))

    jsonschema.validate(items, SCHEMA, cls=jsonschema.Draft7Validator)
    by_id = {item["number"].removeprefix("arXiv:"): item for item in items}
    assert set(by_id) == set(saved)
    for arxiv_id, item in by_id.items():
        paper = saved[arxiv_id]
        assert item["type"] == "article"
        assert item["title"] == paper.title
        assert item["URL"] == f"https://arxiv.org/abs/{arxiv_id}"
        assert item["issued"] == {"date-parts": [[paper.published.year, paper.published.month, paper.published.day]]}
        assert item["publisher"] == "arXiv"
    assert by_id["2611.00001"]["author"] == [
        {"family": "LeCun", "given": "Yann"},
        {"family": "Müller", "given": "Jürgen"},
        {"family": "van der Maaten", "given": "Laurens"},
        {"family": "Collaboration", "given": "Ben and Jerry"},
        {"literal": "Plato"},
    ]
    assert by_id["2611.00001"]["DOI"] == "10.1145/3600000.3600001"
    assert by_id["2611.00001"]["keyword"] == "RL, Über tags"


def test_one_tag_or_a_selection_narrows_every_format(user, saved, other_user):
    record_save(user=other_user, paper=saved["2611.00001"], tags=["deep"])
    deep = tag_get(user=user, name="DEEP")

    assert [item.arxiv_id for item in export_items(user=user, tag=deep)] == ["2611.00003", "2611.00002"]
    chosen = export_items(user=user, arxiv_ids=["2611.00001", "2611.00003", "9999.99999"])
    assert {item.arxiv_id for item in chosen} == {"2611.00001", "2611.00003"}
    assert [item.arxiv_id for item in export_items(user=other_user)] == ["2611.00001"]
    assert tag_get(user=user, name="nothing") is None


def test_the_json_export_holds_all_of_the_users_data(user, saved, django_assert_max_num_queries):
    follow_create(user=user, kind="author", value={"author": "Yann LeCun"}, name="LeCun")
    exclusion_create(user=user, kind="query", value="survey")
    record_save(user=user, paper=saved["2611.00001"], state="read")

    # A fixed number of queries, however many records: the trail is composed in eight of them.
    with django_assert_max_num_queries(15):
        data = json.loads(json.dumps(export_data(user=user)))

    assert data["format"] == "papertrail-records" and data["user"]["username"] == user.username
    rows = {row["paper"]: row for row in data["records"]}
    mine = Record.objects.get(user=user, paper=saved["2611.00001"])
    assert rows["2611.00001"] == {
        "paper": "2611.00001",
        "title": TRICKY_TITLE,
        "saved_at": mine.saved_at.isoformat(),
        "state": "read",
        "state_set_at": {
            "to_read": mine.to_read_at.isoformat(),
            "reading": mine.reading_at.isoformat(),
            "read": mine.read_at.isoformat(),
        },
        "tags": ["RL", "Über tags"],
        "note": "mine",
        "note_updated_at": mine.note_updated_at.isoformat(),
        "last_read_version": None,
        "updated_at": mine.updated_at.isoformat(),
    }
    assert {tag["name"]: tag["records"] for tag in data["tags"]} == {"RL": 1, "Über tags": 1, "deep": 2}
    [follow] = data["follows"]
    assert follow["kind"] == "author" and follow["value"]["author"] == "Yann LeCun" and follow["name"] == "LeCun"
    assert data["exclusions"] == [
        {"kind": "query", "value": "survey", "created_at": data["exclusions"][0]["created_at"]}
    ]
    trail = {row["paper"]: row for row in data["trail"]}
    assert set(trail) == {"2611.00001", "2611.00002", "2611.00003"}
    assert all(row["unread"] and row["read_at"] is None for row in trail.values())
