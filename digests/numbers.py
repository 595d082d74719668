"""The number check of a reading's "results": every number it states must
occur in the text the model was given. Pure functions, no database.

Formatting is forgiven (12.5% and 12.5, 1,000 and 1000, 0.50 and 0.5, a
minus sign or a hyphen before it, 87.3% for a source's 0.873); rounding is
not (87% for a source's 87.3% is a number the source does not state).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

# A number not glued to a Latin letter, digit or point before it, nor joined
# to a name by a hyphen (so "F1", "GPT4", "GPT-4", "BLEU-4" and the "2" of "v2"
# are names, not figures); Chinese characters may touch it ("提升12.5%").
# Thousands separators only in groups of three.
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%|\uff05)?")
# Citations of the paper's own sections, figures and tables, arXiv identifiers,
# numbered citations ("[21]", "[3, 5-7]") and author-year ones ("et al., 2020")
# are references, not figures: a renumbered table is no new result, and a
# reference list's "[21]" must not vouch for a "21%".
_NOT_FIGURES = re.compile(
    r"(?:§|\b(?:Sections?|Sec\.|Figures?|Fig\.|Tables?|Tab\.|Appendix|Eq\.|Equation|Algorithm)\s*|[图表]\s*)"
    r"~?[A-Z]?\d+(?:\.\d+)*|\b\d{4}\.\d{4,5}(?:v\d+)?\b"
    r"|\[\d+(?:\s*[,;\u2013\u2014-]\s*\d+)*\]|\bet al\.?,?\s*\(?\d{4}[a-z]?"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])")
_HUNDRED = Decimal(100)


def _value(whole: str, fraction: str | None) -> Decimal | None:
    try:
        return Decimal(whole.replace(",", "") + (fraction or "")).normalize()
    except InvalidOperation:
        return None


def figures(text: str) -> list[tuple[str, Decimal, bool]]:
    """(as written, value, written as a percentage) for each number in `text`."""
    out = []
    for match in _NUMBER.finditer(_NOT_FIGURES.sub(" ", text or "")):
        value = _value(match.group(1), match.group(2))
        if value is not None:
            out.append((match.group(0).strip(), value, bool(match.group(3))))
    return out


def source_values(text: str) -> frozenset[Decimal]:
    """Every number the source text states, as values."""
    return frozenset(value for _written, value, _pct in figures(text))


def occurs(value: Decimal, percent: bool, source: frozenset[Decimal]) -> bool:
    return value in source or (percent and (value / _HUNDRED).normalize() in source)


def unchecked_numbers(text: str, source: frozenset[Decimal]) -> list[str]:
    """The numbers of `text` (as written) that the source does not state."""
    return [written for written, value, percent in figures(text) if not occurs(value, percent, source)]


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE.split(text or "") if part.strip()]


def strip_sentences(text: str, drop: Callable[[str], bool]) -> tuple[str, int]:
    """`text` without the sentences `drop` is true of; with how many were removed."""
    kept, removed = [], 0
    for sentence in sentences(text):
        if drop(sentence):
            removed += 1
        else:
            kept.append(sentence.strip())
    if not removed:
        return text, 0
    joiner = "" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else " "
    return joiner.join(kept), removed


def strip_unchecked(text: str, source: frozenset[Decimal]) -> tuple[str, int]:
    """`text` without the sentences that state a number the source does not;
    with how many sentences were removed."""
    return strip_sentences(text, lambda sentence: bool(unchecked_numbers(sentence, source)))
