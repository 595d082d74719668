"""Benchmark inputs replicated from the recorded real records.

The only recorded arXivRaw ListRecords reply (tests/fixtures/arxiv_oai/
ListRecordsResponse.xml, 6 records) and the 200-line sample of Kaggle's
snapshot (tests/fixtures/kaggle/) are the templates. Paper number `i` of a
series copies template `i % len(templates)` and changes only what has to
differ between papers:

- the identifier: a distinct new-style id `YYMM.NNNNN`, 25,000 papers a month
  (about arXiv's monthly volume), from `series_month` on; each series (one
  per path and variant) starts in its own month, so series never share a paper;
- the versions: one to five (most papers one or two), v1 in the id's month,
  later versions days to months later, sizes of a few hundred kb, written in
  arXiv's own date form ("Tue, 3 Apr 2007 22:04:11 GMT");
- the categories: a CS primary (weighted towards the large AI categories)
  and zero to two cross-lists, because the default harvest set is `cs`;
- the authors: one to twelve names drawn with a long tail from first and last
  names found in the Kaggle sample's `authors_parsed`, so authors are shared
  across papers like real ones and new ones keep appearing;
- the OAI header: the paper's identifier, its last version's date as the
  datestamp and the `cs` set.

The title and abstract are drawn with real length and vocabulary
(bench/text.py) unless `text="recorded"` asks for the recorded ones (the
benchmark's text until 2026-12: it understated the full-text index's cost,
bench/SCALE.md). Everything else (comments, journal-ref, DOI, license,
submitter, msc-class, the OAI envelope, namespaces, whitespace and entity
escapes) is the recorded text, byte for byte: OAI records are cut from the
recorded file as text, snapshot lines are the recorded objects with the
varied keys replaced. Inputs are deterministic for a seed.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from xml.sax.saxutils import escape

from bench.text import TextDrawer

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
OAI_FIXTURE = FIXTURES / "arxiv_oai" / "ListRecordsResponse.xml"
SNAPSHOT_FIXTURE = FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"

PAPERS_PER_MONTH = 25_000
FIRST_MONTH = (2015, 1)  # five-digit new-style ids start in 1501

_PRIMARY = [
    ("cs.LG", 20),
    ("cs.CV", 15),
    ("cs.CL", 10),
    ("cs.AI", 6),
    ("cs.RO", 4),
    ("cs.CR", 5),
    ("cs.DS", 3),
    ("cs.IT", 3),
    ("cs.SE", 3),
    ("cs.DC", 3),
    ("cs.NI", 2),
    ("cs.HC", 3),
    ("cs.DB", 2),
    ("cs.PL", 1),
    ("cs.LO", 2),
    ("cs.CY", 3),
    ("cs.IR", 3),
    ("cs.SI", 2),
    ("cs.NE", 1),
    ("cs.GT", 1),
    ("cs.CG", 1),
    ("cs.MA", 1),
    ("cs.SD", 1),
    ("cs.DM", 1),
    ("cs.FL", 1),
]
_CROSS = ["stat.ML", "math.OC", "eess.IV", "eess.SP", "eess.SY", "cs.AI", "cs.LG", "math.IT", "quant-ph", "q-bio.NC"]
_VERSION_COUNTS = ([1, 2, 3, 4, 5], [55, 28, 11, 4, 2])
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def arxiv_date(value: datetime) -> str:
    """arXiv's RFC-822 form, day without a leading zero: `Tue, 3 Apr 2007 22:04:11 GMT`."""
    return (
        f"{_DAYS[value.weekday()]}, {value.day} {_MONTHS[value.month - 1]} {value.year} "
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d} GMT"
    )


def paper_id(series_month: int, index: int) -> str:
    """Paper `index` of a series whose first month is `series_month` months after 1501."""
    months = FIRST_MONTH[1] - 1 + series_month + index // PAPERS_PER_MONTH
    year, month = FIRST_MONTH[0] + months // 12, months % 12 + 1
    return f"{year % 100:02d}{month:02d}.{index % PAPERS_PER_MONTH + 1:05d}"


def months_for(papers: int) -> int:
    return -(-papers // PAPERS_PER_MONTH)


@dataclass(slots=True)
class Variation:
    arxiv_id: str
    versions: list[tuple[str, str]]  # (arXiv date, size)
    categories: list[str]
    authors: list[tuple[str, str]]  # (first, last)


class Varier:
    """Deterministic per-paper variations (ids, versions, categories, authors)."""

    def __init__(self, *, seed: int, series_month: int) -> None:
        self.random = random.Random(seed * 1_000_003 + series_month)
        self.series_month = series_month
        firsts, lasts = _name_parts()
        # Shuffled once so the frequent names are not the alphabetically first.
        random.Random(seed).shuffle(firsts)
        random.Random(seed + 1).shuffle(lasts)
        self.firsts, self.lasts = firsts, lasts
        self.primaries = [code for code, _ in _PRIMARY]
        self.weights = [weight for _, weight in _PRIMARY]

    def _author(self) -> tuple[str, str]:
        # Long tail: a few names on many papers, most on one or two.
        r = self.random.random() ** 2.5
        first = self.firsts[int(r * len(self.firsts))]
        last = self.lasts[int(self.random.random() ** 1.5 * len(self.lasts))]
        return first, last

    def vary(self, index: int) -> Variation:
        rnd = self.random
        arxiv_id = paper_id(self.series_month, index)
        year, month = 2000 + int(arxiv_id[:2]), int(arxiv_id[2:4])
        when = datetime(year, month, rnd.randint(1, 28), rnd.randint(0, 23), rnd.randint(0, 59), rnd.randint(0, 59))
        versions = []
        for _ in range(rnd.choices(*_VERSION_COUNTS)[0]):
            versions.append((arxiv_date(when.replace(tzinfo=UTC)), f"{rnd.randint(8, 4000)}kb"))
            when += timedelta(days=rnd.randint(1, 240), seconds=rnd.randint(0, 86_399))
        primary = rnd.choices(self.primaries, self.weights)[0]
        cross = [c for c in rnd.sample(_CROSS, rnd.choice((0, 0, 1, 1, 2))) if c != primary]
        count = min(12, max(1, int(rnd.expovariate(1 / 3.5)) + 1))
        authors = list(dict.fromkeys(self._author() for _ in range(count)))
        return Variation(arxiv_id, versions, [primary, *cross], authors)


def _name_parts() -> tuple[list[str], list[str]]:
    firsts: dict[str, None] = {}
    lasts: dict[str, None] = {}
    for line in SNAPSHOT_FIXTURE.read_bytes().splitlines():
        for parts in json.loads(line).get("authors_parsed") or []:
            last, first = [*parts, "", ""][:2]
            if last.strip():
                lasts[last.strip()] = None
            if first.strip():
                firsts[first.strip()] = None
    return sorted(firsts), sorted(lasts)


def author_string(authors: list[tuple[str, str]]) -> str:
    """arXiv's form: "A, B, and C"; "A and B"; "A"."""
    names = [f"{first} {last}" for first, last in authors]
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + ", and " + names[-1]


# --- OAI-PMH pages ----------------------------------------------------------

_RECORD = re.compile(r"<record>.*?</record>\n", re.S)
_HEADER = re.compile(r"<header>.*?</header>", re.S)
_VERSIONS = re.compile(r"(?:<version version=\"v\d+\">.*?</version>)+", re.S)


@dataclass(slots=True)
class OaiTemplate:
    """One recorded `<record>` as text, cut around the parts a paper varies."""

    before_versions: str  # from after the header up to the first <version>
    between: str  # after the last </version> up to the authors' text
    before_categories: str
    after_categories: str
    raw_id: str


def _oai_envelope() -> tuple[str, list[str], str]:
    text = OAI_FIXTURE.read_text(encoding="utf-8")
    records = _RECORD.findall(text)
    head = text[: text.index("<record>")]
    tail = text[text.rindex("</record>\n") + len("</record>\n") :]
    return head, records, tail


def oai_templates() -> list[OaiTemplate]:
    _, records, _ = _oai_envelope()
    templates = []
    for record in records:
        body = record[_HEADER.search(record).end() :]
        versions = _VERSIONS.search(body)
        authors_open = body.index("<authors>") + len("<authors>")
        authors_close = body.index("</authors>")
        categories_open = body.index("<categories>") + len("<categories>")
        categories_close = body.index("</categories>")
        raw_id = body[body.index("<id>") + 4 : body.index("</id>")]
        templates.append(
            OaiTemplate(
                before_versions=body[: versions.start()],
                between=body[versions.end() : authors_open],
                before_categories=body[authors_close:categories_open],
                after_categories=body[categories_close:],
                raw_id=raw_id,
            )
        )
    return templates


_TITLE = re.compile(r"<title>.*?</title>", re.S)
_ABSTRACT = re.compile(r"<abstract>.*?</abstract>", re.S)


def oai_record(template: OaiTemplate, variation: Variation, text: tuple[str, str] | None = None) -> str:
    """The recorded record with this paper's header, id, versions, authors and
    categories, and with `text` (title, abstract) for the recorded text if given."""
    last_date = datetime.strptime(variation.versions[-1][0][5:], "%d %b %Y %H:%M:%S GMT").date()
    header = (
        f"<header>\n <identifier>oai:arXiv.org:{variation.arxiv_id}</identifier>\n"
        f" <datestamp>{last_date.isoformat()}</datestamp>\n <setSpec>cs</setSpec>\n</header>"
    )
    versions = "".join(
        f'<version version="v{number}"><date>{date}</date><size>{size}</size></version>'
        for number, (date, size) in enumerate(variation.versions, start=1)
    )
    record = (
        f"<record>\n{header}"
        + template.before_versions.replace(f"<id>{template.raw_id}</id>", f"<id>{variation.arxiv_id}</id>")
        + versions
        + template.between
        + escape(author_string(variation.authors))
        + template.before_categories
        + " ".join(variation.categories)
        + template.after_categories
    )
    if text is not None:
        record = _TITLE.sub(lambda _: f"<title>{escape(text[0])}</title>", record, count=1)
        record = _ABSTRACT.sub(lambda _: f"<abstract>{escape(text[1])}</abstract>", record, count=1)
    return record


def _texts(text: str, papers: int, seed: int, stream: int) -> Iterator[tuple[str, str] | None]:
    """Each paper's (title, abstract): drawn (bench/text.py) or, for "recorded", None (keep the template's)."""
    if text == "recorded":
        return itertools.repeat(None, papers)
    if text != "realistic":
        raise ValueError(f"text must be 'realistic' or 'recorded', not {text!r}")

    return TextDrawer(seed=seed, stream=stream).texts(papers)


def oai_pages(*, papers: int, page_size: int, series_month: int, seed: int, text: str = "realistic") -> Iterator[bytes]:
    """ListRecords replies of `page_size` records in the recorded envelope,
    joined by arXiv-style resumption tokens (`<list id>|<next cursor>`); the
    last closes the list with an empty token, as arXiv does."""
    head, _, _ = _oai_envelope()
    templates = oai_templates()
    varier = Varier(seed=seed, series_month=series_month)
    texts = iter(_texts(text, papers, seed, series_month))
    for start in range(0, papers, page_size):
        end = min(papers, start + page_size)
        parts = [head]
        parts.extend(oai_record(templates[i % len(templates)], varier.vary(i), next(texts)) for i in range(start, end))
        token = f"{900000 + series_month}|{end + 1}" if end < papers else ""
        parts.append(
            f'<resumptionToken cursor="{start}" completeListSize="{papers}">{token}</resumptionToken>\n'
            "</ListRecords>\n</OAI-PMH>\n"
        )
        yield "".join(parts).encode("utf-8")


# --- Snapshot lines ---------------------------------------------------------


def snapshot_templates() -> list[dict]:
    return [json.loads(line) for line in SNAPSHOT_FIXTURE.read_bytes().splitlines() if line.strip()]


def snapshot_line(template: dict, variation: Variation, text: tuple[str, str] | None = None) -> bytes:
    data = dict(template)
    if text is not None:
        data["title"], data["abstract"] = text
    data["id"] = variation.arxiv_id
    data["versions"] = [{"version": f"v{n}", "created": date} for n, (date, _) in enumerate(variation.versions, 1)]
    last = datetime.strptime(variation.versions[-1][0][5:], "%d %b %Y %H:%M:%S GMT")
    data["update_date"] = last.date().isoformat()
    data["categories"] = " ".join(variation.categories)
    data["authors"] = author_string(variation.authors)
    data["authors_parsed"] = [[last_name, first, ""] for first, last_name in variation.authors]
    return json.dumps(data).encode() + b"\n"


def snapshot_lines(*, papers: int, series_month: int, seed: int, text: str = "realistic") -> Iterator[bytes]:
    templates = snapshot_templates()
    varier = Varier(seed=seed, series_month=series_month)
    for index, drawn in zip(range(papers), _texts(text, papers, seed, series_month), strict=True):
        yield snapshot_line(templates[index % len(templates)], varier.vary(index), drawn)


def write_oai_pages(directory: Path, **options) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, page in enumerate(oai_pages(**options)):
        path = directory / f"page-{number:05d}.xml"
        path.write_bytes(page)
        paths.append(path)
    return paths


def write_snapshot(path: Path, **options) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        for line in snapshot_lines(**options):
            out.write(line)
    return path
