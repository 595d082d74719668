"""Plain records that every source produces and the upsert service consumes,
and the small text helpers that turn arXiv's raw fields into them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime

from harvest.author_strings import AFFILIATION_SEPARATOR, parse_authors
from harvest.text_repair import readable

_OLD_STYLE_ID = re.compile(r"^[a-z][a-z\-]*(\.[A-Z]{2})?/\d{7}$")
_NEW_STYLE_ID = re.compile(r"^\d{4}\.\d{4,5}$")
_VERSION_SUFFIX = re.compile(r"v(\d+)$")
_WHITESPACE = re.compile(r"\s+")
_WRAPPED_LINE = re.compile(r"\n(?![ \t\n])")
_PARAGRAPH_BREAK = re.compile(r"\s*\n\s*")


@dataclass(slots=True)
class VersionRecord:
    number: int
    submitted: datetime | None = None
    size: str = ""
    source_type: str = ""

    def __reduce__(self):
        # Records cross a pipe from the snapshot's reader process: rebuilt by
        # the constructor, several times faster than the per-field state
        # protocol dataclasses give slotted classes.
        return VersionRecord, (self.number, self.submitted, self.size, self.source_type)


@dataclass(slots=True)
class PaperRecord:
    """What one source says about one paper: the latest version's metadata and
    every version the source knows of. `affiliations`: each author's, in the
    order of `authors` ("" where the source gives none), or [] when the
    source gives none at all."""

    arxiv_id: str
    title: str
    abstract: str = ""
    authors: list[str] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    comments: str = ""
    journal_ref: str = ""
    doi: str = ""
    license: str = ""
    submitter: str = ""
    versions: list[VersionRecord] = field(default_factory=list)
    published: datetime | None = None
    updated: datetime | None = None
    affiliations: list[str] = field(default_factory=list)

    def __reduce__(self):  # see VersionRecord.__reduce__
        return PaperRecord, (
            self.arxiv_id,
            self.title,
            self.abstract,
            self.authors,
            self.categories,
            self.comments,
            self.journal_ref,
            self.doi,
            self.license,
            self.submitter,
            self.versions,
            self.published,
            self.updated,
            self.affiliations,
        )

    @property
    def latest_version(self) -> int:
        return max([v.number for v in self.versions], default=1)


class MalformedRecord(ValueError):
    """A record that cannot be stored; the harvester logs and skips it."""


def split_arxiv_id(raw: str) -> tuple[str, int | None]:
    """`2611.13545v2` -> (`2611.13545`, 2); `hep-th/9901001` -> (`hep-th/9901001`, None).

    Raises MalformedRecord for anything that is not an arXiv identifier."""
    text = raw.strip()
    for prefix in ("oai:arXiv.org:", "arXiv:", "arxiv:", "http://arxiv.org/abs/", "https://arxiv.org/abs/"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    version = None
    match = _VERSION_SUFFIX.search(text)
    if match and (_NEW_STYLE_ID.match(text[: match.start()]) or _OLD_STYLE_ID.match(text[: match.start()])):
        version = int(match.group(1))
        text = text[: match.start()]
    if not (_NEW_STYLE_ID.match(text) or _OLD_STYLE_ID.match(text)):
        raise MalformedRecord(f"not an arXiv identifier: {raw!r}")
    return text, version


# The bounded columns a record's values go to (harvest/models.py): a longer
# value is no name or code, and the record is reported and skipped.
MAX_AUTHOR_NAME = 512
MAX_CATEGORY = 32


def checked(record: PaperRecord) -> PaperRecord:
    """The record, or MalformedRecord naming the value that no column can
    hold; every other long field is text and kept whole."""
    for name in record.authors:
        if len(name) > MAX_AUTHOR_NAME:
            raise MalformedRecord(
                f"{record.arxiv_id}: an author name of {len(name)} characters "
                f"(at most {MAX_AUTHOR_NAME}): {name[:80]!r}..."
            )
    if record.affiliations and len(record.affiliations) != len(record.authors):
        raise MalformedRecord(
            f"{record.arxiv_id}: {len(record.affiliations)} affiliations for {len(record.authors)} authors"
        )
    for code in record.categories:
        if len(code) > MAX_CATEGORY:
            raise MalformedRecord(f"{record.arxiv_id}: a category code of {len(code)} characters: {code[:80]!r}...")
    return record


def clean_line(text: str | None) -> str:
    """A one-line field (a title, a name, a journal reference): whitespace
    collapsed, TeX letters and mis-decoded UTF-8 made readable
    (harvest/text_repair.py)."""
    # str.split() splits where the regular expression's \s matches (str.isspace).
    return " ".join(readable(text).split()) if text else ""


clean_title = clean_line
clean_name = clean_line


def clean_abstract(text: str | None) -> str:
    """Undo arXiv's hard line wraps but keep paragraph breaks (an indented
    line); TeX letters and mis-decoded UTF-8 made readable."""
    if not text:
        return ""
    stripped = readable(text).strip()
    if "\n " not in stripped and "\n\t" not in stripped and "\n\n" not in stripped:
        # No paragraph break, so every newline is a hard wrap: the regular
        # expressions below would give exactly this (their \s is str.isspace),
        # at a tenth of the cost. Most abstracts take this path.
        return " ".join(stripped.split())
    joined = _WRAPPED_LINE.sub(" ", stripped)
    paragraphs = _PARAGRAPH_BREAK.split(joined)
    return "\n".join(_WHITESPACE.sub(" ", p).strip() for p in paragraphs if p.strip())


def split_authors(text: str | None) -> list[str]:
    """arXiv's author string ("A, B, and C (Univ)") as a list of names, the
    affiliations left out (harvest/author_strings.py keeps them)."""
    return parse_authors(text)[0]


def author_affiliations(authors: list[str], affiliations: list[list[str]]) -> list[str]:
    """One affiliation text per author from a source that gives each author
    a list of them (the arXiv API, the snapshot's `authors_parsed`); []
    when no author has one or the lists do not match the authors."""
    texts = [AFFILIATION_SEPARATOR.join(dict.fromkeys(filter(None, map(clean_line, found)))) for found in affiliations]
    if len(texts) != len(authors) or not any(texts):
        return []
    return texts


def parse_arxiv_date(text: str | None) -> datetime | None:
    """arXiv's RFC-822 version dates ("Tue, 3 Apr 2007 22:04:11 GMT") in UTC."""
    if not text:
        return None
    fast = _fast_arxiv_date(text)
    if fast is not None:
        return fast
    try:
        value = parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError) as exc:
        raise MalformedRecord(f"bad date {text!r}") from exc
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


_DAY_NAMES = frozenset(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))
_MONTH_NUMBERS = {
    name: number
    for number, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}


def _fast_arxiv_date(text: str) -> datetime | None:
    """The one shape arXiv writes ("Tue, 3 Apr 2007 22:04:11 GMT") read
    directly, several times faster than the general RFC-822 parser; None for
    anything else, which then takes the general parser (and its errors)."""
    parts = text.split()
    if len(parts) != 6 or parts[5] != "GMT" or parts[0][:-1] not in _DAY_NAMES or not parts[0].endswith(","):
        return None
    month = _MONTH_NUMBERS.get(parts[2])
    day, year, clock = parts[1], parts[3], parts[4].split(":")
    numbers = (day, year, *clock)
    if month is None or len(year) != 4 or len(clock) != 3 or not all(n.isascii() and n.isdigit() for n in numbers):
        return None
    try:
        return datetime(int(year), month, int(day), int(clock[0]), int(clock[1]), int(clock[2]), tzinfo=UTC)
    except ValueError:
        return None


def parse_size(text: str | None) -> str:
    return (text or "").strip()[:32]


@dataclass(slots=True)
class ListedItem:
    """One paper version an announcement feed listed, and how (`new`,
    `cross`, `replace` or `replace-cross`)."""

    arxiv_id: str
    version: int
    announce_type: str


@dataclass(slots=True)
class FeedAnnouncement:
    """What one fetch of arXiv's announcement feed listed on one day.
    `left_for_oai`: replaced papers new to the library whose earlier versions
    the API lookup did not give (the OAI-PMH harvest brings them)."""

    feed: str
    announced_on: date
    items: list[ListedItem] = field(default_factory=list)
    left_for_oai: list[str] = field(default_factory=list)
