"""Finding arXiv ids and DOIs in what reference managers write, and reading a
pasted list of arXiv ids, arXiv URLs or DOIs."""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import gettext as _

from accounts.records.files import ImportEntry, MalformedEntry, ReadResult
from harvest.source_records import MalformedRecord, split_arxiv_id

_ID = r"(?:\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
# Where reference managers put an arXiv id: an abs/pdf URL, "arXiv:<id>"
# (Zotero's note and number, Google Scholar's journal), arXiv's own DOI
# (10.48550/arXiv.<id>).
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv\.org/(?:abs|pdf)/|\barxiv:\s*|10\.48550/arxiv\.)({_ID})(?![\w.])", re.IGNORECASE | re.ASCII
)
_BARE_ID = re.compile(rf"^{_ID}$")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>,;]+)", re.ASCII)
_DOI_URL_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_DOI_PREFIX = "10.48550/arxiv."
_NON_WORD = re.compile(r"[\W_]+")


def arxiv_id_of(value: str) -> str:
    """The arXiv id (without version) of a bare id like `2611.13545v2` or
    `hep-th/9901001`, or "" if the value is not one."""
    value = value.strip()
    if not _BARE_ID.match(value):
        return ""
    try:
        return split_arxiv_id(value)[0]
    except MalformedRecord:
        return ""


def arxiv_id_in(*texts: str) -> str:
    """The first arXiv id named in these texts (URL, `arXiv:` or arXiv DOI)."""
    for text in texts:
        match = _ARXIV_IN_TEXT.search(text or "")
        if match:
            found = arxiv_id_of(match.group(1))
            if found:
                return found
    return ""


def doi_in(*texts: str) -> str:
    """The first DOI in these texts that is not arXiv's own, lower-cased
    (DOIs are case-insensitive)."""
    for text in texts:
        for match in _DOI.finditer(_DOI_URL_PREFIX.sub("", (text or "").strip())):
            doi = match.group(1).rstrip(".").lower()
            if not doi.startswith(_ARXIV_DOI_PREFIX):
                return doi
    return ""


def normalised_title(title: str) -> str:
    """A title compared for an exact match: accents, case, punctuation and
    spacing set aside ("The {B}ig {\\"U}ber-Model" ~ "the big uber model")."""
    folded = unicodedata.normalize("NFKD", title or "")
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).casefold()
    return " ".join(_NON_WORD.sub(" ", folded.replace("{", "").replace("}", "")).split())


def read_id_list(text: str) -> ReadResult:
    """A pasted list: one arXiv id, arXiv URL or DOI per line (or separated by
    spaces or commas)."""
    result = ReadResult()
    for token in re.split(r"[\s,;]+", text.strip()):
        if not token:
            continue
        arxiv_id = arxiv_id_of(token) or arxiv_id_in(token)
        if arxiv_id:
            result.entries.append(ImportEntry(label=token, arxiv_id=arxiv_id))
            continue
        doi = doi_in(token)
        if doi:
            result.entries.append(ImportEntry(label=token, doi=doi))
        else:
            result.malformed.append(MalformedEntry(token, _("not an arXiv id, an arXiv URL or a DOI")))
    return result


_PARTICLES = frozenset(
    [
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "du",
        "dos",
        "das",
        "la",
        "le",
        "ter",
        "ten",
        "zu",
        "bin",
        "al",
    ]
)


def split_name(name: str) -> tuple[str, str]:
    """(family, given) of a name written "Given Family", with the particles
    that start a family name kept with it ("Laurens van der Maaten")."""
    parts = name.split()
    if len(parts) < 2:
        return name.strip(), ""
    start = len(parts) - 1
    for position in range(1, len(parts) - 1):
        if parts[position] in _PARTICLES:
            start = position
            break
    return " ".join(parts[start:]), " ".join(parts[:start])


def ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in folded if ch.isascii() and ch.isalnum()).lower()
