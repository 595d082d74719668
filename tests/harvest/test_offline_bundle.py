"""`load_offline_bundle`: the bundled real records, loaded through the real parsers."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Max
from lxml import etree

from harvest.models import Author, CommunityPick, HarvestRun, Paper, Version
from harvest.offline.loader import BUNDLE_DIR
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
RAW = "{http://arxiv.org/OAI/arXivRaw/}"


def expected_versions() -> dict[str, set[int]]:
    """Paper id -> version numbers, read from the bundle's files without the
    code under test."""
    found: dict[str, set[int]] = {}
    for line in (BUNDLE_DIR / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl").read_text().splitlines():
        entry = json.loads(line)
        found.setdefault(entry["id"], set()).update(int(v["version"][1:]) for v in entry["versions"])
    oai = etree.parse(str(BUNDLE_DIR / "arxiv_oai" / "ListRecordsResponse.xml"))
    for raw in oai.iter(f"{RAW}arXivRaw"):
        found.setdefault(raw.findtext(f"{RAW}id"), set()).update(
            int(v.get("version")[1:]) for v in raw.iterfind(f"{RAW}version")
        )
    for path in (BUNDLE_DIR / "arxiv_abs").rglob("*.abs"):
        text = path.read_bytes().decode("utf-8", errors="replace")
        arxiv_id = re.search(r"^arXiv:(\S+)", text, re.MULTILINE).group(1)
        numbers = {int(n or 1) for n in re.findall(r"^Date(?: \(revised v(\d+)\))?:", text, re.MULTILINE)}
        found.setdefault(arxiv_id, set()).update(numbers)
    for path in (BUNDLE_DIR / "arxiv_api").iterdir():
        body = path.read_bytes()
        if path.suffix == ".json":
            body = json.loads(body)["body"].encode()
        for entry in etree.fromstring(body).iterfind(f"{ATOM}entry"):
            arxiv_id, _, version = entry.findtext(f"{ATOM}id").split("/abs/")[1].rpartition("v")
            found.setdefault(arxiv_id, set()).add(int(version))
    return found


def hf_ids() -> set[str]:
    return {
        item["paper"]["id"]
        for path in (BUNDLE_DIR / "hf_daily").glob("*.json")
        for item in json.loads(path.read_bytes())
    }


def load(*args: str) -> str:
    out = StringIO()
    call_command("load_offline_bundle", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def state() -> tuple:
    return tuple(
        (model.objects.count(), model.objects.aggregate(top=Max("id"))["top"])
        for model in (Paper, Version, CommunityPick)
    )


def test_the_bundle_is_a_byte_for_byte_copy_of_recorded_fixtures():
    suffixes = (".json", ".jsonl", ".xml", ".abs")
    files = [path for path in BUNDLE_DIR.rglob("*") if path.is_file() and path.suffix in suffixes]
    assert len(files) == 11 + 90
    for path in files:
        assert path.read_bytes() == (FIXTURES / path.relative_to(BUNDLE_DIR)).read_bytes()


def test_an_empty_library_gets_every_bundled_paper_and_version():
    expected = expected_versions()

    out = load()

    assert Paper.objects.count() == len(expected)
    assert Version.objects.count() == sum(len(numbers) for numbers in expected.values())
    stored = {}
    for arxiv_id, number in Version.objects.values_list("paper__arxiv_id", "number"):
        stored.setdefault(arxiv_id, set()).add(number)
    assert stored == expected
    assert CommunityPick.objects.count() == len(hf_ids() & set(expected))
    assert f"offline bundle: {len(expected)} new papers" in out
    # Two of the sample's papers have their earlier versions among arXiv's .abs files, loaded first.
    assert "arxiv_abs: 90 records, 30 new papers" in out
    assert "kaggle/arxiv-metadata-oai-snapshot.sample.jsonl: 200 records, 198 new papers" in out
    assert "arxiv_oai/ListRecordsResponse.xml: 6 records, 6 new papers" in out
    assert HarvestRun.objects.count() == 0


def test_the_bundled_library_reads_clean_no_tex_letters_nor_mojibake():
    load()
    texts = [
        text
        for title, abstract, authors in Paper.objects.values_list("title", "abstract", "authors")
        for text in (title, _outside_math(abstract), *authors)
    ]
    texts += list(Author.objects.values_list("name", flat=True))
    for mark in ("\\'", '\\"', "\\v{", "\\c{", "Ã", "Â"):
        assert not [text for text in texts if mark in text], mark
    # The recordings' double-encoded names and accented TeX names, as a reader sees them.
    names = set(Author.objects.values_list("name", flat=True))
    assert {"Betül Karagöz", "Aurora Ramírez", "Dirk Wübben", "Tomáš Vinař"} <= names


def _outside_math(text: str) -> str:
    return re.sub(r"\$[^$]*\$", "", text)


def test_a_second_load_stores_nothing():
    load()
    before = state()

    out = load()

    assert "already holds papers" in out
    assert state() == before


def test_force_loads_into_a_library_that_holds_papers_without_writing_anything_twice():
    load()
    before = state()

    out = load("--force")

    assert state() == before
    assert "offline bundle: 0 new papers, 0 versions, 0 community picks stored" in out
    assert HarvestRun.objects.count() == 0


def test_a_fresh_install_shows_what_changed_between_two_recorded_versions(client):
    load()
    page = client.get("/papers/hep-th/9901001/").content.decode()
    # arXiv's own files of v1, v2 and v3: each change shown as words, none "cannot be shown".
    assert page.count('<dl class="diff">') == 2 and "本站没有同时保存" not in page
    assert "We <ins>explicitly </ins>give the correspondence" in page
    assert "<del>12</del><ins>13</ins> pages" in page
    with_texts = [
        arxiv_id
        for arxiv_id in Paper.objects.filter(version_count__gt=1).values_list("arxiv_id", flat=True)
        if Version.objects.filter(paper__arxiv_id=arxiv_id).exclude(abstract="").count() > 1
    ]
    assert len(with_texts) >= 25
