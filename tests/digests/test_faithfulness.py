"""The faithfulness check of stored readings (digests/faithfulness.py,
`manage.py check_readings`) over readings written from every real recorded
paper (tests/digests/fulltext_papers.py) through each protocol's stand-in:
a stand-in that states only the numbers of the sections it was sent passes
on every paper; one that adds a figure outside "results" and writes a
Chinese field in English is stopped at writing (asked again, then those
sentences removed and counted); a reading whose text was read again is
written again once from the new text, and a second change only marks it
stale, which the check reports with the sections it cites that are gone.
The table is the one in docs/fulltext.md."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from digests.faithfulness import check_readings, table
from digests.models import GuidedReading
from digests.numbers import figures
from digests.reading_text import units_of
from digests.services import Outcome, reading_write, readings_create_for_versions
from digests.upgrades import reading_upgrade
from harvest.fulltext.pdf_parser import parse_pdf
from harvest.fulltext.services import store_document
from tests.digests.conftest import make_record, store
from tests.digests.fake_anthropic import default_reading
from tests.digests.fulltext_papers import PAPERS, fixture_document
from tests.replay_server import fixture_bytes

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[2] / "docs" / "fulltext.md"
_BLOCK = re.compile(r"<section>\n<ref>(.*?)</ref>\n<heading>.*?</heading>\n<text>(.*?)</text>", re.S)
LIAR = "1406.90100"  # P14-1100: its stand-in adds a figure to "method" and writes zh/limitations in English
REREAD = "2206.10883"  # read again later from its first 3 pages, then from its first page only
NAMES = {arxiv_id: name.removesuffix(".gz") for name, (arxiv_id, _n) in PAPERS.items()}


def _user(params: dict) -> str:
    content = params["messages"][0]["content"]
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def faithful_reading(params: dict) -> dict:
    """The stand-in's reading: its result is the first figure of a section it
    was sent, cited; problem and method cite the first sections sent."""
    user = _user(params)
    blocks = _BLOCK.findall(user)
    reading = default_reading(params)
    refs = [ref for ref, _text in blocks]
    numbered = [(ref, figures(text)[0][0]) for ref, text in blocks if figures(text)]
    if numbered:
        written = numbered[-1][1]
        reading["en"]["results"] = f"The paper reports {written}."
        reading["zh"]["results"] = f"论文报告的数值为 {written}。"
    reading["sources"] = {
        "problem": refs[:1],
        "method": refs[1:2],
        "results": [numbered[-1][0]] if numbered else [],
        "limitations": [],
        "changes": [],
    }
    if f"arXiv {LIAR}," in user:
        reading["en"]["method"] += " It parses 4242.5 sentences per second."
        reading["zh"]["method"] += "每秒解析4242.5个句子。"
        reading["zh"]["limitations"] = "The paper does not state its limitations."
    return reading


def write_fixture_readings() -> None:
    for name, (arxiv_id, number) in PAPERS.items():
        document = fixture_document(name)
        abstract = document.abstract or units_of(document)[0].text[:900]
        record = make_record(arxiv_id, title=document.title or name, abstract=abstract, versions=number)
        version = store(record)[-1]
        store_document(version=version, document=document)
        (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
        assert reading_write(reading_id=reading_id) == Outcome.DONE, name


def docs_table() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("<!-- faithfulness table -->")
    return [line for line in text[start:].splitlines()[1:] if line.startswith("|")][: len(PAPERS) + 2]


def read_again(reading: GuidedReading, *, pages: int, capture) -> None:
    """The version's text stored again (as a refresh would), with harvest's signal delivered."""
    document = parse_pdf(fixture_bytes("fulltext/2206.10883v3.pdf"), max_pages=pages, seconds=60)
    with capture(execute=True):
        store_document(version=reading.version, document=document)


def test_readings_of_every_recorded_paper_are_checked_and_the_unfaithful_ones_named(
    stand_in, settings, published, django_capture_on_commit_callbacks
):
    settings.PAPERTRAIL_SUMMARY_FULLTEXT_TOKENS = 6000
    stand_in.reading_for = faithful_reading
    write_fixture_readings()
    reread = GuidedReading.objects.get(version__paper__arxiv_id=REREAD)
    read_again(reread, pages=3, capture=django_capture_on_commit_callbacks)
    assert published == [{"queue": "llm", "args": [reread.pk]}]
    assert reading_upgrade(reading_id=reread.pk) == Outcome.DONE  # written again from the 3 pages
    read_again(reread, pages=1, capture=django_capture_on_commit_callbacks)
    assert len(published) == 1  # once: the second change marks it stale only

    checks = {c.arxiv_id: c for c in check_readings()}

    assert set(checks) == set(NAMES) and all(c.origin for c in checks.values())
    faithful = {a for a, c in checks.items() if c.faithful}
    assert faithful == set(NAMES) - {REREAD}
    assert all(checks[a].numbers and checks[a].citations for a in faithful)
    liar = checks[LIAR]
    assert not liar.unfound_numbers and not liar.wrong_language
    written = GuidedReading.objects.get(pk=liar.reading_id)
    assert (written.numbers_removed, written.language_removed) == (2, 1)  # stopped at writing, after a retry
    assert "4242.5" not in str(written.content) and written.content["zh"]["limitations"] == ""
    reread.refresh_from_db()
    assert (reread.stale, reread.reread, reread.upgrade) == (True, True, "done")
    assert checks[REREAD].stale and checks[REREAD].missing_sections  # the cited sections past page 1 are gone
    ordered = [checks[arxiv_id] for arxiv_id, _n in PAPERS.values()]
    assert table(ordered, names=NAMES) == docs_table()


def test_the_command_prints_the_table_and_how_many_readings_are_not_faithful(fake_anthropic):
    fake_anthropic.reading_for = faithful_reading
    document = fixture_document("P14-1100.xhtml.gz")
    version = store(make_record(LIAR, title=document.title, abstract=document.abstract))[-1]
    store_document(version=version, document=document)
    (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
    reading_write(reading_id=reading_id)
    out = StringIO()

    call_command("check_readings", stdout=out)

    lines = out.getvalue().splitlines()
    assert lines[2] == f"| {LIAR}v1 | html | 3 | 2/2 | 3/3 | 9/9 | — |"  # stopped at writing
    assert lines[-1] == "1 readings checked, 0 with something not found"
    GuidedReading.objects.filter(pk=reading_id).update(content={"en": {"method": "It parses 4242.5 sentences."}})
    out = StringIO()
    call_command("check_readings", stdout=out)
    assert "en/method: 4242.5" in out.getvalue() and out.getvalue().endswith("1 with something not found\n")


def test_readings_written_from_the_abstract_are_not_checked(fake_anthropic):
    (version,) = store(make_record("2401.00001"))
    (reading_id,) = readings_create_for_versions(version_ids=[version.pk], dispatch=False)
    reading_write(reading_id=reading_id)

    assert GuidedReading.objects.get(pk=reading_id).source == GuidedReading.Source.ABSTRACT
    assert check_readings() == []
