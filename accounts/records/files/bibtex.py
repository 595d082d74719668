"""BibTeX: `@misc` entries as arXiv's own "Export BibTeX citation" writes
them, and a reader for what Zotero, Mendeley and Google Scholar export."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

import bibtexparser
from bibtexparser import middlewares
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock
from django.utils.translation import gettext as _
from pylatexenc.latex2text import LatexNodes2Text

from accounts.records.files import ExportItem, ImportEntry, MalformedEntry, ReadResult
from accounts.records.files.identifiers import arxiv_id_in, arxiv_id_of, ascii_word, doi_in, split_name

# Title words arXiv's citation keys skip ("On the ..." -> the next word).
_KEY_STOPWORDS = frozenset(
    ["a", "an", "the", "on", "of", "in", "for", "and", "to", "with", "from", "at", "by", "is", "are", "via", "towards"]
)
_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "$": r"\$",
}
_KEY_SPLIT = re.compile(r"[\s\-/:]+")
_SPECIAL = re.compile(r"[\\{}&%#_~^$]")
# Inline math as arXiv titles carry it ($O(n^2)$): kept as written for TeX.
_MATH = re.compile(r"\$[^$\n]+\$")
_NEEDS_DECODER = re.compile(r"[\\~$%]")
_DECODER = LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True)


def tex_escape(text: str) -> str:
    """Plain text as TeX: the special characters escaped outside inline math,
    non-ASCII left as UTF-8 (biber and bibtex8 read it; `\\"u` is not needed)."""
    if not _SPECIAL.search(text):
        return text
    out, position = [], 0
    for match in _MATH.finditer(text):
        out.append(_SPECIAL.sub(lambda m: _SPECIALS[m.group()], text[position : match.start()]))
        math = match.group()
        out.append(math if _balanced(math) else _SPECIAL.sub(lambda m: _SPECIALS[m.group()], math))
        position = match.end()
    out.append(_SPECIAL.sub(lambda m: _SPECIALS[m.group()], text[position:]))
    return "".join(out)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _author(name: str) -> str:
    escaped = tex_escape(name)
    # A name holding the word "and" would split in two: brace it whole.
    return f"{{{escaped}}}" if re.search(r"\band\b", name, re.IGNORECASE) else escaped


def citation_key(item: ExportItem) -> str:
    """arXiv's key: the first author's family name, the year and the first
    word of the title that is not a stop word (lecun2026deep)."""
    family = ascii_word(split_name(item.authors[0])[0]) if item.authors else ""
    words = (ascii_word(word) for word in _KEY_SPLIT.split(item.title))
    first = next((word for word in words if word and word not in _KEY_STOPWORDS), "")
    return f"{family or 'anon'}{item.year or ''}{first}"


def unique_keys(items: Iterable[ExportItem]) -> list[str]:
    """Keys in order, a second use of one suffixed a, b, ... (then 2, 3, ...)."""
    seen: set[str] = set()
    keys = []
    for item in items:
        base = key = citation_key(item)
        suffixes = itertools.chain("abcdefghijklmnopqrstuvwxyz", map(str, itertools.count(2)))
        while key in seen:
            key = base + next(suffixes)
        seen.add(key)
        keys.append(key)
    return keys


def write(items: list[ExportItem]) -> str:
    blocks = []
    for item, key in zip(items, unique_keys(items), strict=True):
        fields = [
            ("title", tex_escape(item.title)),
            ("author", " and ".join(_author(name) for name in item.authors)),
            ("year", str(item.year or "")),
            ("eprint", item.arxiv_id),
            ("archivePrefix", "arXiv"),
            ("primaryClass", item.primary_category),
            ("doi", item.doi),
            ("url", item.url),
            ("keywords", tex_escape(", ".join(item.tags))),
        ]
        lines = [f"      {name}={{{value}}}," for name, value in fields if value]
        blocks.append(f"@misc{{{key},\n" + "\n".join(lines) + "\n}\n")
    return "\n".join(blocks)


def decode(value: str) -> str:
    """A field's TeX as plain text: accents ({\\"u} -> ü), escapes and
    case-protecting braces undone; inline math kept as written."""
    if not _NEEDS_DECODER.search(value):
        # Most fields are plain words, or words with case-protecting braces:
        # pylatexenc costs milliseconds a field, a 2,000-entry file seconds.
        return " ".join(value.replace("{", "").replace("}", "").split())
    return " ".join(_DECODER.latex_to_text(value).split())


def _field(entry: Entry, *names: str) -> str:
    for name in names:
        found = entry.fields_dict.get(name)
        value = str(found.value).strip() if found is not None else ""
        if len(value) > 1 and (value[0], value[-1]) in (("{", "}"), ('"', '"')) and _balanced(value[1:-1]):
            # An entry read past a duplicate key skips the parser's unwrapping.
            value = value[1:-1].strip()
        if value:
            return value
    return ""


def _tags(entry: Entry) -> list[str]:
    raw = ",".join(_field(entry, name) for name in ("keywords", "mendeley-tags") if _field(entry, name))
    return [tag for tag in (decode(part) for part in re.split(r"[,;]", raw)) if tag]


def entry_from(entry: Entry) -> ImportEntry:
    eprint = _field(entry, "eprint")
    prefix = (_field(entry, "archiveprefix", "eprinttype") or "arxiv").lower()
    arxiv_id = (arxiv_id_of(eprint) if prefix == "arxiv" else "") or arxiv_id_in(
        _field(entry, "url"), _field(entry, "doi"), _field(entry, "note"), _field(entry, "journal"), eprint
    )
    title = decode(_field(entry, "title"))
    return ImportEntry(
        label=entry.key or title[:80],
        arxiv_id=arxiv_id,
        doi=doi_in(_field(entry, "doi")),
        title=title,
        tags=_tags(entry),
    )


def read(text: str) -> ReadResult:
    library = bibtexparser.parse_string(text, append_middleware=[middlewares.NormalizeFieldKeys()])
    result = ReadResult()
    entries = list(library.entries)
    for block in library.failed_blocks:
        if isinstance(block, DuplicateBlockKeyBlock):
            # Two entries under one key: Zotero and Scholar both write such
            # files; each entry still names a paper.
            entries.append(block.ignore_error_block)
        elif isinstance(block, ParsingFailedBlock):
            line = block.start_line + 1 if block.start_line is not None else "?"
            first = block.raw.strip().splitlines()[0][:60] if block.raw.strip() else ""
            label = _("line %(line)s: %(text)s") % {"line": line, "text": first}
            result.malformed.append(MalformedEntry(label, _("not a complete BibTeX entry")))
    for entry in sorted(entries, key=lambda e: e.start_line or 0):
        try:
            imported = entry_from(entry)
        except Exception as exc:  # a field pylatexenc cannot read: that entry alone
            result.malformed.append(MalformedEntry(entry.key, _("unreadable field: %(error)s") % {"error": exc}))
            continue
        if not (imported.arxiv_id or imported.doi or imported.title):
            result.malformed.append(MalformedEntry(entry.key, _("no arXiv id, DOI or title")))
        else:
            result.entries.append(imported)
    return result
