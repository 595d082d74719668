"""Author name normalisation, and keyword queries evaluated in Python with
exactly the library's PostgreSQL full-text semantics (over the real fixture
papers)."""

from __future__ import annotations

import json

import pytest

from accounts.follows.facts import compile_query, papers_facts
from accounts.follows.matching import DayIndex
from accounts.follows.names import normalise_name, same_person_shape, surname_and_initial
from accounts.follows.tsquery import is_bounded, parse
from harvest.filters import PaperFilterSet
from harvest.models import Paper
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from harvest.sources.arxiv_api import records_from_atom
from harvest.sources.snapshot import parse_snapshot_line
from tests.replay_server import FIXTURES


@pytest.mark.parametrize(
    ("written", "normalised"),
    [
        ("Jean-Pierre Müller", "jean pierre muller"),
        ("J.-P. MÜLLER", "j p muller"),
        ("  Zoë   O'Neil, Jr. ", "zoe o'neil jr"),
        ("Łukasz Kaiser", "lukasz kaiser"),
        ("Straße", "strasse"),
        ("\uff21\uff4e\uff44\uff52\uff45\uff57 \uff2e\uff47", "andrew ng"),  # full-width forms fold under NFKD
    ],
)
def test_normalisation_folds_accents_case_and_separators(written, normalised):
    assert normalise_name(written) == normalised


def test_surname_keeps_a_hyphenated_surname_whole():
    assert surname_and_initial("Maria García-López") == ("garcia lopez", "m")
    assert same_person_shape("m garcia lopez", surname="garcia lopez", initial="m")
    assert not same_person_shape("m lopez", surname="garcia lopez", initial="m")
    assert not same_person_shape("a garcia lopez", surname="garcia lopez", initial="m")


def test_tsquery_precedence_and_phrases_parse_as_postgresql_prints_them():
    tree, exact = parse("'e-mail' <-> 'e' <-> 'mail' | 'x' <-> 'y' & !'z' & 'w'")
    assert exact
    assert tree[0] == "|"
    assert tree[1] == ["<>", 1, ["<>", 1, ["l", "e-mail"], ["l", "e"]], ["l", "mail"]]
    assert tree[2] == ["&", ["&", ["<>", 1, ["l", "x"], ["l", "y"]], ["!", ["l", "z"]]], ["l", "w"]]
    assert parse("'it''s'")[0] == ["l", "it's"]
    assert parse("'pre':*")[1] is False  # prefix matching: left to PostgreSQL
    assert not is_bounded(parse("!'cat'")[0]) and not is_bounded(parse("'a' | !'b'")[0])


def _fixture_records():
    lines = (FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl").read_bytes().splitlines()
    records = {r.arxiv_id: r for r in (parse_snapshot_line(line) for line in lines)}
    for path in sorted((FIXTURES / "arxiv_api").glob("*.json")):
        body = json.loads(path.read_text())["body"]
        if json.loads(path.read_text())["status_code"] == 200 and "<arxiv:primary_category" in body:
            for rec in records_from_atom(body.encode()):
                records.setdefault(rec.arxiv_id, rec)
    return list(records.values())


QUERIES = [
    "quantum",
    "quantum field theory",
    '"modular forms"',
    '"phase space"',
    "black hole OR neutron star",
    "energy -quantum",
    'magnetic -"magnetic field"',
    "graph decompositions",
    "state-of-the-art",
    "next-to-leading order",
    '"large hadron collider"',
    "Higgs boson",
    "dark matter OR dark energy",
    "superconductivity OR superconducting",
    "random walks",
    '"the energy of the system"',
    "lattice -gauge -QCD",
    "spin glass",
    "Calculations",
    "studied studies study",
    '"cross sections" OR "decay rates"',
    "neural networks",
    "deep learning",
    '"of the" model',
    "self-similar solutions",
    "non-commutative OR noncommutative",
    "C++",
    "x-ray",
    '"x-ray" emission',
    "electron-phonon interaction",
    "algorithm complexity",
    "we show that",
    "mass -mass",
    "galaxy galaxies",
    '"first order" phase transition',
    "theorem OR lemma -conjecture",
    "Tevatron LHC",
    "polymers OR polymer",
    "equation",
]


@pytest.mark.django_db
def test_keyword_matching_equals_the_library_search_on_the_fixture_papers():
    records = _fixture_records()
    assert len(records) > 200
    paper_upsert_many(records=records)
    # Lexemes computed before the full-text index has the papers (as right
    # after a harvest), compared with the library's search once it has them.
    latest = {pid: (0, 1, None) for pid in Paper.objects.values_list("id", flat=True)}
    index = DayIndex(papers_facts(latest, set()))
    index_pending_papers()
    assert not Paper.objects.filter(search_pending=True).exists()
    indexed = DayIndex(papers_facts(latest, set()))
    nonempty = 0
    for q in QUERIES:
        library = set(PaperFilterSet({"q": q, "mode": "keyword"}).qs.values_list("id", flat=True))
        compiled = compile_query(q)
        for day in (index, indexed):
            ours = {day.papers[i].paper_id for i in day.query_matches(compiled, range(len(day.papers)))}
            assert ours == library, (q, compiled["tsquery"], sorted(ours ^ library)[:5])
        nonempty += bool(library)
    assert nonempty >= 30
