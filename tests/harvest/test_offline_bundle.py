"""`load_offline_bundle`: the bundled real records, loaded through the real parsers."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Max
from lxml import etree

from harvest.models import Author, CommunityPick, HarvestRun, Paper, Version
from harvest.offline.loader import BUNDLE_DIR
from harvest.sources.oai import parse_list_records
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
RAW = "{http://arxiv.org/OAI/arXivRaw/}"
ARX = "{http://arxiv.org/OAI/arXiv/}"
ARXIV_ATOM = "{http://arxiv.org/schemas/atom}"

# The main computer-science categories a reader follows; each has a real
# share of the bundle's papers as their primary category (PROVENANCE.md).
MAIN_CS = ("cs.CL", "cs.CV", "cs.LG", "cs.AI", "cs.CR", "cs.RO", "cs.SE", "cs.DB", "cs.DC", "cs.HC")


@pytest.fixture(autouse=True)
def own_vector_index(settings, tmp_path):
    """The bundle ships its embeddings: a search here reads them into this
    process's vector index, which must not outlive the test's rolled-back rows."""
    settings.VAR_DIR = tmp_path


def recorded(path) -> bytes:
    """A bundled file's recorded bytes (a .gz file holds the gzip of them)."""
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def bundled(folder: str) -> list:
    return sorted(path for path in (BUNDLE_DIR / folder).iterdir() if path.is_file())


def expected_versions() -> dict[str, set[int]]:
    """Paper id -> version numbers, read from the bundle's files without the
    code under test."""
    found: dict[str, set[int]] = {}
    for line in (BUNDLE_DIR / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl").read_text().splitlines():
        entry = json.loads(line)
        found.setdefault(entry["id"], set()).update(int(v["version"][1:]) for v in entry["versions"])
    for path in bundled("arxiv_oai"):
        oai = etree.fromstring(recorded(path))
        for raw in oai.iter(f"{RAW}arXivRaw"):
            found.setdefault(raw.findtext(f"{RAW}id"), set()).update(
                int(v.get("version")[1:]) for v in raw.iterfind(f"{RAW}version")
            )
        # The `arXiv` format names no versions: its records hold v1.
        for record in oai.iter(f"{ARX}arXiv"):
            found.setdefault(record.findtext(f"{ARX}id"), set()).add(1)
    for path in (BUNDLE_DIR / "arxiv_abs").rglob("*.abs"):
        text = path.read_bytes().decode("utf-8", errors="replace")
        arxiv_id = re.search(r"^arXiv:(\S+)", text, re.MULTILINE).group(1)
        numbers = {int(n or 1) for n in re.findall(r"^Date(?: \(revised v(\d+)\))?:", text, re.MULTILINE)}
        found.setdefault(arxiv_id, set()).update(numbers)
    for path in bundled("arxiv_api"):
        body = recorded(path)
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


@pytest.fixture(scope="module")
def loaded(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The bundle loaded once into the empty test library, for every test of the
    module (a load takes 20 seconds); each test's own writes still roll back,
    and the library is emptied after the module. What the load printed."""
    with django_db_blocker.unblock():
        out = load()
    yield out
    with django_db_blocker.unblock():
        call_command("flush", "--no-input", verbosity=0)


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


def test_the_gzipped_files_hold_the_recorded_files_their_provenance_names():
    """Each .gz file is the gzip of a file from outside tests/fixtures/; its
    provenance gives the recorded file's sha256, which the bytes must have."""
    rows = re.findall(r"^\| `([^`]+\.xml)` \| `([0-9a-f]{64})` \|", (BUNDLE_DIR / "PROVENANCE.md").read_text(), re.M)
    gzipped = {path.name.removesuffix(".gz"): path for path in BUNDLE_DIR.rglob("*.gz")}
    assert len(gzipped) == 11 and gzipped.keys() == dict(rows).keys()
    for name, sha256 in rows:
        assert hashlib.sha256(recorded(gzipped[name])).hexdigest() == sha256, name


def test_an_empty_library_gets_every_bundled_paper_and_version(loaded):
    expected = expected_versions()

    out = loaded

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
    for page in range(88, 94):
        assert f"arxiv_oai/arxivXMLParser_set-cs_2016-03-09_{page}.xml.gz: 1000 records, 1000 new papers" in out
    for start in ("000", "100", "200", "300", "400"):
        assert f"arxiv_api/scientific-semantic-search_cs_2025-12-16_start{start}.xml.gz: 100 records, 100 new" in out
    assert HarvestRun.objects.count() == 0


def expected_primary_categories() -> Counter:
    """Primary category -> papers, read from the new CS files without the code
    under test: the first of a record's categories in the `arXiv` OAI pages,
    `arxiv:primary_category` in the API pages."""
    found: dict[str, str] = {}
    for path in bundled("arxiv_oai"):
        for record in etree.fromstring(recorded(path)).iter(f"{ARX}arXiv"):
            found[record.findtext(f"{ARX}id")] = record.findtext(f"{ARX}categories").split()[0]
    for path in bundled("arxiv_api"):
        if path.name.startswith("scientific-semantic-search_"):
            for entry in etree.fromstring(recorded(path)).iterfind(f"{ATOM}entry"):
                arxiv_id = entry.findtext(f"{ATOM}id").split("/abs/")[1].rpartition("v")[0]
                found[arxiv_id] = entry.find(f"{ARXIV_ATOM}primary_category").get("term")
    return Counter(found.values())


def test_a_fresh_library_holds_thousands_of_computer_science_papers_across_its_fields(loaded):
    stored = Counter(Paper.objects.values_list("primary_category", flat=True))
    expected = expected_primary_categories()
    cs = sum(count for category, count in stored.items() if category.startswith("cs."))
    assert cs >= 5000
    assert sum(count for category, count in expected.items() if category.startswith("cs.")) >= 5000
    for category in MAIN_CS:
        assert stored[category] >= expected[category] >= 70, category
    # Recent work too: the 2025 API pages, every paper with its first version's date.
    recent = Paper.objects.filter(published__year=2025, primary_category__startswith="cs.")
    assert recent.count() >= 450
    assert not Version.objects.filter(paper__in=recent, submitted__isnull=True).exists()
    # The 2016 pages give each paper's first version and its last-updated day.
    page = Paper.objects.get(arxiv_id="1602.04400")
    assert page.primary_category == "cs.NI" and page.version_count == 1
    assert page.versions.get().submitted.date().isoformat() == "2016-02-13"
    # Revised on 2016-02-24 (v2 or later: the format does not say), each author with an affiliation. The
    # library dates a paper by its newest stored version, here v1, until a harvest brings the others.
    revised = Paper.objects.get(arxiv_id="1602.05419")
    assert revised.published.date().isoformat() == revised.updated.date().isoformat() == "2016-02-17"
    page93 = parse_list_records(recorded(BUNDLE_DIR / "arxiv_oai" / "arxivXMLParser_set-cs_2016-03-09_93.xml.gz"))
    assert next(r for r in page93.records if r.arxiv_id == "1602.05419").updated.date().isoformat() == "2016-02-24"
    assert revised.authors == ["Aymeric Dieuleveut", "Nicolas Flammarion", "Francis Bach"]
    assert revised.affiliations == ["SIERRA, LIENS", "LIENS, SIERRA", "SIERRA, LIENS"]
    assert revised.categories == ["math.OC", "cs.LG", "stat.ML"] and revised.primary_category == "math.OC"
    assert Paper.objects.get(arxiv_id="1602.05990").title.startswith("Plücker Correction Problem")


def test_a_reader_finds_computer_science_by_words_and_by_category(client, loaded):
    found = client.get("/papers/", {"q": "speculative decoding", "mode": "keyword"}).content.decode()
    assert "2512.13194" in found  # cs.CL, Dec 2025: rejection sampling for speculative decoding
    listed = client.get("/papers/", {"category": "cs.CL", "cross_lists": "0"}).content.decode()
    ids = set(re.findall(r'href="/papers/([^"/]+)/"', listed))
    assert ids and set(Paper.objects.filter(arxiv_id__in=ids).values_list("primary_category", flat=True)) == {"cs.CL"}


def test_the_bundled_library_reads_clean_no_tex_letters_nor_mojibake(loaded):
    texts = [
        text
        for title, abstract, authors in Paper.objects.values_list("title", "abstract", "authors")
        for text in (title, _outside_math(abstract), *authors)
    ]
    texts += list(Author.objects.values_list("name", flat=True))
    for mark in ("\\'", '\\"', "\\v{", "\\c{", "Ã", "Â", "\x7f"):
        assert not [text for text in texts if mark in text], mark
    # The recordings' double-encoded names and accented TeX names, as a reader sees them.
    names = set(Author.objects.values_list("name", flat=True))
    assert {"Betül Karagöz", "Aurora Ramírez", "Dirk Wübben", "Tomáš Vinař"} <= names


def _outside_math(text: str) -> str:
    return re.sub(r"\$[^$]*\$", "", text)


def test_a_second_load_stores_nothing(loaded):
    before = state()

    out = load()

    assert "already holds papers" in out
    assert state() == before


def test_force_loads_into_a_library_that_holds_papers_without_writing_anything_twice(loaded):
    before = state()

    out = load("--force")

    assert state() == before
    assert "offline bundle: 0 new papers, 0 versions, 0 community picks stored" in out
    assert HarvestRun.objects.count() == 0


def test_a_fresh_install_shows_what_changed_between_two_recorded_versions(client, loaded):
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
