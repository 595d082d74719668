"""Which format an imported text is in, from its name and its first bytes."""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.records.files import FileFormatError, ReadResult, bibtex, csljson, ris
from accounts.records.files.identifiers import read_id_list

IMPORT_FORMATS = ("bibtex", "ris", "csljson", "ids")
_BY_SUFFIX = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris", ".json": "csljson", ".txt": "ids"}
_READERS = {"bibtex": bibtex.read, "ris": ris.read, "csljson": csljson.read, "ids": read_id_list}


def detect(text: str, filename: str = "") -> str:
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{"):
        return "csljson"
    if ris.looks_like_ris(text):
        return "ris"
    if stripped.startswith("@") or "\n@" in text or stripped.startswith("%"):
        return "bibtex"
    suffix = filename[filename.rfind(".") :].lower() if "." in filename else ""
    if _BY_SUFFIX.get(suffix) in ("bibtex", "ris", "csljson"):
        raise FileFormatError(_("the file is named %(suffix)s but does not read as that format") % {"suffix": suffix})
    return "ids"


def read_any(text: str, filename: str = "") -> tuple[str, ReadResult]:
    """(format, what was read). A file of another kind altogether (HTML, a
    spreadsheet) raises FileFormatError."""
    kind = detect(text, filename)
    result = _READERS[kind](text)
    if kind == "ids" and not result.entries:
        raise FileFormatError(_("not a BibTeX, RIS or CSL-JSON file, nor a list of arXiv ids, arXiv URLs or DOIs"))
    if kind != "ids" and not result.entries and not result.malformed:
        raise FileFormatError(_("no entries found in this %(format)s file") % {"format": kind})
    return kind, result
