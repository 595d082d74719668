"""arXiv's author strings as names and the affiliations kept beside them.

arXiv writes a paper's authors as one string (arXivRaw's `authors`, the .abs
`Authors:` line, the announcement feed's `dc:creator`, the snapshot's
`authors`), with affiliations in parentheses after the names they belong to,
written out ("A. Author (MIT), B. Author (ETH)") or numbered, with the list
at the end ("A (1,2) and B (2) ((1) MIT, (2) ETH)"). The rules are the ones
arXiv's own author parser follows (the snapshot's `authors_parsed` shows its
results): a group right after a name is that name's affiliation; numbers in
it name entries of the closing list; an author without an affiliation takes
that of the next author who has one ("A, B (MIT)": both at MIT), a
collaboration never does. Two cases arXiv's parser gets wrong are read
otherwise, each seen in the recorded files: a group inside a name ("Zhe
(Rita) Liang") is nobody's affiliation and is left out of the name, as it
always was; a closing list written without inner parentheses ("(1 Bologna;
2 Teramo)") is read when its numbers run 1, 2, 3, ...
"""

from __future__ import annotations

import re

from harvest.text_repair import readable

# The separators of names, as the library has always split them.
AUTHOR_SEPARATOR = re.compile(r",\s*(?:and\s+)?|\s+and\s+|;\s*")
_AFTER_AFFILIATION = re.compile(r"\s*(?:[,;]|and\b)")
_REFERENCES = re.compile(r"\d+(?:\s*(?:,|&|and)\s*\d+)*")
_NUMBER = re.compile(r"\d+")
_PARENTHESIS = re.compile(r"[()]")
_INNER_NUMBER = re.compile(r"\(\s*(\d+)\s*\)")
_BARE_NUMBER = re.compile(r"(?:^|[;,])\s*(\d+)\s+(?=[^\d\s,;])")
_COLLABORATION = re.compile(r"\b(?:collaboration|group|team|consortium)\b", re.IGNORECASE)
# What follows the closing list of affiliations, if anything.
_TRAILER = re.compile(r"[\s.,;]*")
# Joins an author's affiliations into the one text an authorship keeps.
AFFILIATION_SEPARATOR = "; "


def parse_authors(text: str | None) -> tuple[list[str], list[str]]:
    """The names in order and each one's affiliation ("" where the string
    gives none; several joined by "; "); the affiliations are [] when no
    author has one. TeX letters and mis-decoded UTF-8 made readable."""
    if not text:
        return [], []
    flat = " ".join(readable(text).split())
    if "(" not in flat:
        return split_names(flat), []
    parts = _top_level(flat)
    footnotes = _footnotes(parts)
    if footnotes:
        parts = parts[:-2]
    entries: list[tuple[str, list[str]]] = []
    pending = ""
    for index, (is_group, content) in enumerate(parts):
        if not is_group:
            pending += content
            continue
        after = parts[index + 1][1] if index + 1 < len(parts) else ""
        if after.strip() and not _AFTER_AFFILIATION.match(after):
            pending += " "  # a group inside a name ("Zhe (Rita) Liang")
            continue
        entries.extend((name, []) for name in split_names(pending))
        pending = ""
        if entries:
            entries[-1][1].extend(_affiliations(content, footnotes))
    entries.extend((name, []) for name in split_names(pending))
    _back_propagate(entries)
    names = [name for name, _ in entries]
    affiliations = [AFFILIATION_SEPARATOR.join(dict.fromkeys(found)) for _, found in entries]
    return names, affiliations if any(affiliations) else []


def split_names(text: str) -> list[str]:
    names = (" ".join(name.split()) for name in AUTHOR_SEPARATOR.split(text))
    return [name for name in names if name and name.lower() != "and"]


def is_reference(text: str) -> bool:
    """True for "1", "1,2", "1 and 3": numbers of a closing list, no affiliation."""
    return bool(_REFERENCES.fullmatch(text.strip()))


def _top_level(text: str) -> list[tuple[bool, str]]:
    """The string as alternating text and parenthesised groups (True, the
    group's inside, nested parentheses kept), starting and ending with
    text; an unclosed parenthesis stays text."""
    parts: list[tuple[bool, str]] = []
    depth, start, opened = 0, 0, 0
    for found in _PARENTHESIS.finditer(text):
        position = found.start()
        if found.group() == "(":
            if depth == 0:
                parts.append((False, text[start:position]))
                opened = start = position + 1
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                parts.append((True, text[start:position]))
                start = position + 1
    parts.append((False, text[opened - 1 :] if depth else text[start:]))
    return parts


def _footnotes(parts: list[tuple[bool, str]]) -> dict[str, str]:
    """Number -> affiliation of the closing list, when the last group is one
    and some author refers to it; {} otherwise."""
    if len(parts) < 3 or not _TRAILER.fullmatch(parts[-1][1]):
        return {}
    if not any(is_group and is_reference(content) for is_group, content in parts[:-2]):
        return {}
    listed = parts[-2][1]
    pieces = _INNER_NUMBER.split(listed)
    if len(pieces) < 3 or pieces[0].strip():
        pieces = _BARE_NUMBER.split(listed)
        numbers = pieces[1::2]
        if len(pieces) < 3 or pieces[0].strip() or numbers != [str(n) for n in range(1, len(numbers) + 1)]:
            return {}
    return {number: _tidy(affiliation) for number, affiliation in zip(pieces[1::2], pieces[2::2], strict=True)}


def _tidy(affiliation: str) -> str:
    text = affiliation.strip().rstrip(",; ")
    if text.endswith(" and"):
        text = text[:-4].rstrip(",; ")
    return text


def _affiliations(content: str, footnotes: dict[str, str]) -> list[str]:
    text = " ".join(content.split())
    if is_reference(text):
        return [footnotes[number] for number in _NUMBER.findall(text) if footnotes.get(number)]
    return [text] if text else []


def _back_propagate(entries: list[tuple[str, list[str]]]) -> None:
    """Authors without an affiliation take that of the next author with one."""
    following: list[str] = []
    for name, found in reversed(entries):
        if found:
            following = found
        elif following and not _COLLABORATION.search(name):
            found.extend(following)
