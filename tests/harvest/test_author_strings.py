"""Affiliations in arXiv's author strings: read beside the names (as arXiv's
own parser reads them), passed on by every source that carries them, kept
on the paper and its authorships by both stores, and taken out of stored
names that still hold one. Every case is a real record."""

from __future__ import annotations

import importlib
import json
import re

import bibtexparser
import pytest
from bibtexparser import middlewares
from django.apps import apps
from django.core.management import call_command

from accounts.records.export import export_citations
from accounts.records.services import record_save
from harvest.author_strings import is_reference, parse_authors
from harvest.models import Author, Authorship, Paper, Version
from harvest.source_records import clean_line, split_authors
from harvest.sources.abs_files import abs_records
from harvest.sources.arxiv_api import records_from_atom
from harvest.sources.arxiv_rss import parse_feed
from harvest.sources.oai import parse_list_records
from harvest.sources.snapshot import import_snapshot, open_snapshot, parse_snapshot_line
from tests.harvest import oai_pages
from tests.replay_server import FIXTURES, fixture_bytes

KAGGLE = FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
KAGGLE_LINES = {json.loads(line)["id"]: line for line in KAGGLE.read_bytes().splitlines()}
ABS_AUTHORS = re.compile(r"^Authors:(.*(?:\n[ \t].*)*)", re.MULTILINE)
migration = importlib.import_module("harvest.migrations.0018_affiliations_from_stored_names")


def abs_authors(path) -> str:
    """The `Authors:` field of an .abs file, with its continuation lines."""
    return ABS_AUTHORS.search(path.read_bytes().decode("utf-8", "replace")).group(1)


def kaggle(arxiv_id: str) -> dict:
    return json.loads(KAGGLE_LINES[arxiv_id])


def arxivs_reading(entry: dict) -> list[str]:
    """The affiliations of the snapshot's `authors_parsed`, whitespace collapsed."""
    return ["; ".join(" ".join(a.split()) for a in parts[3:]) for parts in entry["authors_parsed"]]


def test_affiliations_written_out_are_read_as_arxivs_own_parser_reads_them():
    """Wherever the snapshot's `authors_parsed` gives affiliations in words
    (17 of the 200 records), the string is read to the same ones, given to
    the authors before a name as arXiv gives them ("…, David Jansen and Ewine
    van Dishoeck (Leiden)": both at Leiden)."""
    compared = 0
    for arxiv_id in KAGGLE_LINES:
        entry = kaggle(arxiv_id)
        theirs = arxivs_reading(entry)
        if not any(theirs) or any(is_reference(a) for a in theirs):
            continue
        names, affiliations = parse_authors(entry["authors"])
        assert affiliations == theirs, arxiv_id
        compared += 1
    assert compared == 17
    names, affiliations = parse_authors(kaggle("0704.0155")["authors"])
    assert dict(zip(names, affiliations, strict=True))["David Jansen"] == "Leiden"


def test_numbered_affiliations_are_resolved_where_arxivs_own_reading_leaves_them():
    """0704.0025: `authors_parsed` keeps "1 and 2"; 0704.0128: it drops them all."""
    assert arxivs_reading(kaggle("0704.0025")) == ["1 and 2", "1 and 3"]
    assert parse_authors(kaggle("0704.0025")["authors"]) == (
        ["A. S. Mishchenko", "N. Nagaosa"],
        [
            "CREST, Japan Science and Technology Agency; Russian Research Centre ``Kurchatov Institute''",
            "CREST, Japan Science and Technology Agency; The University of Tokyo",
        ],
    )
    assert not any(arxivs_reading(kaggle("0704.0128")))
    names, affiliations = parse_authors(kaggle("0704.0128")["authors"])
    assert names[0] == "P.A. Evans" and affiliations[0] == "University of Leicester"
    assert names[-1] == "P. Romano"
    assert affiliations[-1] == "INAF-Osservatorio Astronomico di Brera; Universita' degli Studi di Milano"
    # TeX letters decoded in affiliations too; a list without separators between its entries.
    assert parse_authors(kaggle("0704.0177")["authors"])[1][-1] == "Universität Dortmund, Germany"
    assert parse_authors(kaggle("0704.0190")["authors"])[1][-1] == (
        "Advanced Research Institute for Science and Engineering, Waseda University, Tokyo"
    )


def test_a_numbered_list_without_inner_parentheses_is_read_when_its_numbers_run_in_order():
    names, affiliations = parse_authors(kaggle("0704.0139")["authors"])
    by_name = dict(zip(names, affiliations, strict=True))
    assert by_name["G. Beccari"] == (
        "INAF--Oss. Astro., Bologna; Dip. di Scienze della Comunicazione, Teramo; "
        "INAF--Oss. Astro. di Collurania, Teramo"
    )
    assert by_name["M. Mapelli"] == "S.I.S.S.A., Via Beirut 2 - 4, Trieste"
    assert by_name["S. Sigurdsson"] == "Astronomy Department, University of Virginia"


def names_as_they_were_split(text: str) -> list[str]:
    """The names as the library split author strings before affiliations
    were kept: every parenthesised group removed, then split."""
    flat = clean_line(text)
    while (stripped := re.sub(r"\([^()]*\)", "", flat)) != flat:
        flat = stripped
    names = (" ".join(name.split()) for name in re.split(r",\s*(?:and\s+)?|\s+and\s+|;\s*", flat))
    return [name for name in names if name and name.lower() != "and"]


def test_names_stay_as_they_were_split_and_carry_no_parentheses():
    """Every real author string on record (the snapshot and arXiv's .abs
    files): the names are those the library always stored, without a
    parenthesis; a group inside a name is nobody's affiliation."""
    strings = [kaggle(arxiv_id)["authors"] for arxiv_id in KAGGLE_LINES]
    for folder in ("arxiv_abs", "arxiv_abs_0704"):
        strings += [abs_authors(path) for path in sorted((FIXTURES / folder).rglob("*.abs"))]
    assert len(strings) == 200 + 90 + 1001
    for text in strings:
        names, affiliations = parse_authors(text)
        assert names == names_as_they_were_split(text) == split_authors(text)
        assert affiliations == [] or len(affiliations) == len(names)
        if "(" in text and ")" in text:
            assert not any("(" in name for name in names), text
    nickname = "Louis Leblanc, Maha Manoubi, Kadeem Dennis, Zhe (Rita) Liang, Matei I.\n  Radulescu"
    assert abs_authors(next((FIXTURES / "arxiv_abs" / "ftp").rglob("1210.8438.abs"))).strip() == nickname
    assert parse_authors(nickname) == (
        ["Louis Leblanc", "Maha Manoubi", "Kadeem Dennis", "Zhe Liang", "Matei I. Radulescu"],
        [],
    )


def test_the_snapshot_takes_names_from_authors_parsed_and_affiliations_from_the_string():
    record = parse_snapshot_line(KAGGLE_LINES["0704.0025"])
    assert record.authors == ["A. S. Mishchenko", "N. Nagaosa"]
    assert record.affiliations[1] == "CREST, Japan Science and Technology Agency; The University of Tokyo"
    accented = parse_snapshot_line(KAGGLE_LINES["0704.0199"])
    assert accented.authors == ["Christian Krattenthaler", "Thomas Müller"]
    assert accented.affiliations == ["Universität Wien", "Queen Mary & Westfield College, University of London"]
    # "…, et al": the string names one author more than authors_parsed, which then gives them (none here).
    babar = parse_snapshot_line(KAGGLE_LINES["0704.0020"])
    assert babar.authors[0] == "The BABAR Collaboration" and babar.affiliations == []
    assert parse_snapshot_line(KAGGLE_LINES["0704.0001"]).affiliations == []


def test_abs_files_keep_their_affiliations():
    path = next((FIXTURES / "arxiv_abs").rglob("9709175.abs"))
    [record] = abs_records(path)
    assert record.authors == ["Selma Junqueira", "Duilia F. de Mello", "Leopoldo Infante"]
    assert record.affiliations == [
        "Observatorio Nacional - Brazil",
        "Observatorio Nacional - Brazil",
        "P. Universidad Catolica - Chile",
    ]


def test_the_arxiv_api_keeps_its_affiliation_elements():
    body = json.loads(fixture_bytes("arxiv_api/id_astro-ph_0601001_s0_m100_3150dca9dc76.json"))["body"]
    [record] = records_from_atom(body.encode())
    by_name = dict(zip(record.authors, record.affiliations, strict=True))
    assert by_name["Andrew Gould"] == "Ohio State" and by_name["B. Scott Gaudi"] == "CfA"
    assert by_name["Andrzej Udalski"] == "Warsaw University Observatory"
    page = json.loads(fixture_bytes("arxiv_api/q_testing_s0_m100_cfe7536492ca.json"))["body"]
    records = records_from_atom(page.encode())
    with_affiliations = [r for r in records if r.affiliations]
    assert [dict(zip(r.authors, r.affiliations, strict=True)) for r in with_affiliations] == [
        {"Marie-Claude Gaudel": "LRI", "Pascale Le Gall": "IBISC"}
    ]
    assert all(r.affiliations == [] for r in records if r not in with_affiliations)


def test_oai_pmh_reads_affiliations_in_its_author_string():
    """The recorded arXivRaw page carries none; its `authors` element is the
    .abs `Authors:` line, so a record holding 0704.0025's (its .abs file,
    as arXiv serves it) gives the same reading."""
    page = parse_list_records(fixture_bytes("arxiv_oai/ListRecordsResponse.xml"))
    assert all(record.affiliations == [] for record in page.records)
    line = abs_authors(FIXTURES / "arxiv_abs_0704" / "0704.0025.abs")
    recorded = oai_pages.recorded_records()["0704.0471"]
    [record] = parse_list_records(
        oai_pages.list_records_page([oai_pages.with_field(recorded, "authors", line)], token=None)
    ).records
    assert record.authors == ["A. S. Mishchenko", "N. Nagaosa"]
    assert record.affiliations == parse_snapshot_line(KAGGLE_LINES["0704.0025"]).affiliations


def test_the_announcement_feeds_on_record_carry_no_affiliations_and_keep_their_names():
    feeds = [
        "arxiv_rss_stat_2024-03-26_emanuelealiverti.xml",
        "arxiv_atom_cs.AI_2025-08-20_7entries_zotero-arxiv-daily.xml",
    ]
    for name in feeds:
        records = parse_feed(fixture_bytes(f"arxiv_rss/{name}")).records
        assert records and all(record.affiliations == [] for record in records)
        assert all(record.authors and not any("(" in a for a in record.authors) for record in records)


@pytest.mark.django_db
def test_authorships_keep_the_affiliations_and_an_author_stays_one_person_across_papers():
    call_command("import_snapshot", str(KAGGLE), stdout=None)
    links = Authorship.objects.filter(paper__arxiv_id="0704.0025").order_by("position")
    assert [(a.author.name, a.affiliation) for a in links] == [
        (
            "A. S. Mishchenko",
            "CREST, Japan Science and Technology Agency; Russian Research Centre ``Kurchatov Institute''",
        ),
        ("N. Nagaosa", "CREST, Japan Science and Technology Agency; The University of Tokyo"),
    ]
    # Peter Brommer signs 0704.0163 and 0704.0185 with his institute: one author row, two authorships.
    brommer = Author.objects.get(name="Peter Brommer")
    assert set(brommer.authorships.values_list("paper__arxiv_id", "affiliation")) == {
        ("0704.0163", "Institut für Theoretische und Angewandte Physik, Universität Stuttgart"),
        ("0704.0185", "Institut für Theoretische und Angewandte Physik, Universität Stuttgart"),
    }
    assert not Author.objects.filter(name__contains="(").exists()
    paper = Paper.objects.get(arxiv_id="0704.0025")
    assert paper.affiliations == [a.affiliation for a in links]
    assert Paper.objects.get(arxiv_id="0704.0001").affiliations == []


@pytest.mark.django_db
def test_importing_again_fills_the_affiliations_of_papers_stored_without_them():
    """Papers stored before the field existed: the same file imported again
    brings their affiliations, and a third import writes nothing."""
    call_command("import_snapshot", str(KAGGLE), stdout=None)
    Paper.objects.update(affiliations=[])
    Authorship.objects.update(affiliation="")
    again = _import()
    assert again.updated == Paper.objects.exclude(affiliations=[]).count() == 24
    assert Authorship.objects.get(paper__arxiv_id="0704.0031").affiliation == "Serpukhov, IHEP"
    third = _import()
    assert (third.new_papers, third.updated, third.unchanged) == (0, 0, third.kept)


def _import():
    with open_snapshot(KAGGLE) as lines:
        return import_snapshot(lines=lines)


@pytest.mark.django_db
def test_the_migration_takes_affiliations_out_of_stored_names_and_merges_the_person():
    """A name stored with its affiliation ("V. M. Biryukov (Serpukhov, IHEP)",
    0704.0031's author string read as one name) loses it to the authorship
    and joins the row that already has the clean name; a group inside a
    name is left alone."""
    call_command("import_snapshot", str(KAGGLE), stdout=None)
    written = kaggle("0704.0031")["authors"]
    paper = Paper.objects.get(arxiv_id="0704.0031")
    other = Paper.objects.get(arxiv_id="0704.0002")
    clean = Author.objects.get(name="V. M. Biryukov")
    Paper.objects.filter(pk=paper.pk).update(authors=[written], affiliations=[])
    Version.objects.filter(paper=paper).update(authors=written)
    Authorship.objects.filter(paper=paper).delete()
    as_written = Author.objects.create(name=written)
    Authorship.objects.create(paper=paper, author=as_written, position=0)
    Authorship.objects.create(paper=other, author=clean, position=9)
    nickname = Author.objects.create(name="Zhe (Rita) Liang")

    migration.affiliations_out_of_names(apps, None)

    paper.refresh_from_db()
    assert paper.authors == ["V. M. Biryukov"] and paper.affiliations == ["Serpukhov, IHEP"]
    assert list(Authorship.objects.filter(paper=paper).values_list("author_id", "affiliation")) == [
        (clean.pk, "Serpukhov, IHEP")
    ]
    assert not Author.objects.filter(pk=as_written.pk).exists()
    assert set(clean.authorships.values_list("paper_id", flat=True)) == {paper.pk, other.pk}
    assert set(Version.objects.filter(paper=paper).values_list("authors", flat=True)) == {"V. M. Biryukov"}
    assert Author.objects.get(pk=nickname.pk).name == "Zhe (Rita) Liang"


@pytest.mark.django_db
def test_bibtex_keeps_the_names_alone_and_reads_back_to_them_in_order(django_user_model):
    call_command("import_snapshot", str(KAGGLE), stdout=None)
    user = django_user_model.objects.create_user("reader", password="x")
    record_save(user=user, paper=Paper.objects.get(arxiv_id="0704.0199"))
    text = export_citations(user=user, format="bibtex")
    library = bibtexparser.parse_string(
        text, append_middleware=[middlewares.LatexDecodingMiddleware(), middlewares.SeparateCoAuthors()]
    )
    [entry] = library.entries
    assert entry["author"] == ["Christian Krattenthaler", "Thomas Müller"]
    assert "Wien" not in text and "Westfield" not in text
