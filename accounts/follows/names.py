"""Author name normalisation: the form in which a follow's variants and a
paper's author names are compared.

A name written in TeX is read first ("Pi\\v{z}urica" is "Pižurica"), then
accents are folded (NFKD, combining marks dropped), case is folded, "." "-"
and "," count as spaces and whitespace is collapsed, so "J.-P. Müller",
"J.-P. M\\"uller", "j p muller" and "J. P. MULLER" are one name. Letters that NFKD does not
decompose but that are commonly written without their stroke are mapped too.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from harvest.text_repair import readable

_SEPARATORS = re.compile(r"[\s.\-,]+")
# Letters with a stroke or ligatures: no decomposition, but the same name.
_EXTRA_FOLDS = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "\u0131": "i", "æ": "ae", "œ": "oe", "þ": "th", "ð": "d"})


@lru_cache(maxsize=200_000)
def normalise_name(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", readable(name))
    folded = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold().translate(_EXTRA_FOLDS)
    return _SEPARATORS.sub(" ", folded).strip()


def surname_and_initial(name: str) -> tuple[str, str]:
    """The normalised surname (the last word as written, so a hyphenated
    surname stays whole) and the first initial; ("", "") for an empty name."""
    words = name.split()
    if not words:
        return "", ""
    surname = normalise_name(words[-1])
    first = normalise_name(" ".join(words[:-1])) if len(words) > 1 else ""
    return surname, first[:1]


def same_person_shape(candidate: str, *, surname: str, initial: str) -> bool:
    """Whether a normalised name ends with `surname` and starts with `initial`."""
    if candidate != surname and not candidate.endswith(" " + surname):
        return False
    rest = candidate[: len(candidate) - len(surname)].strip()
    return bool(rest) and (not initial or rest.startswith(initial))


@lru_cache(maxsize=64)
def letters_folding_to(letter: str) -> str:
    """Every Latin letter whose folded form is `letter` (its accented forms and
    both cases), for a case-insensitive character class."""
    found = {letter, letter.upper()}
    for code in range(0xC0, 0x250):
        ch = chr(code)
        if normalise_name(ch) == letter:
            found.add(ch)
            found.add(ch.upper())
    return "".join(sorted(found))


def folded_regex(normalised: str) -> str:
    """A regular expression (PostgreSQL's and Python's alike) matching names whose normalised end is
    `normalised` (letters with any accent, any separators between words)."""
    parts = []
    for word in normalised.split():
        parts.append(
            "".join(f"[{re.escape(letters_folding_to(ch))}]" if ch.isalpha() else re.escape(ch) for ch in word)
        )
    return r"(^|[\s.,-])" + r"[\s.,-]+".join(parts) + r"[\s.,-]*$"
