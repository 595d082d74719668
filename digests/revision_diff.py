"""What changed between two versions of a paper, section by section, from
their full texts: sections added, removed and rewritten, and the numbers
that changed in the sections both hold. A pure function of two parsed
documents; `diff_text` writes it for the "what changed" prompt.

Sections are paired by heading (numbers shift when a section is inserted,
headings rarely change); a heading met twice ("Evaluation" under two
experiments) pairs in order, and a section left over pairs with the
leftover of the other version whose text it most resembles, when that is
at least RENAMED_SIMILARITY (a renamed section, not one removed and one added).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from difflib import SequenceMatcher

from digests.numbers import figures
from digests.reading_text import Unit, clip, units_of
from harvest.fulltext.document import Document

# A pair keeping less than this share of its words in order is "rewritten";
# above it, "edited" (figures from the real fixtures in docs/fulltext.md).
REWRITTEN_BELOW = 0.75
RENAMED_SIMILARITY = 0.5
EXCERPT_TOKENS = 160
MAX_LISTED = 12
_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Changed:
    ref: str
    heading: str
    similarity: float  # share of the words kept in order, 0..1
    numbers_removed: tuple[str, ...]
    numbers_added: tuple[str, ...]
    new_sentences: tuple[str, ...]  # the new version's sentences the old one lacks


@dataclass(frozen=True)
class RevisionDiff:
    added: tuple[Unit, ...]
    removed: tuple[Unit, ...]
    rewritten: tuple[Changed, ...]
    edited: tuple[Changed, ...]
    unchanged: int

    @property
    def numbers_changed(self) -> tuple[Changed, ...]:
        return tuple(c for c in (*self.rewritten, *self.edited) if c.numbers_removed or c.numbers_added)

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.rewritten or self.edited)


# A heading's reference to a section ("Language Modeling (Section 4.3)") or citation ("Altabaa et al. (2024)",
# "[21]") changes with renumbering or citation style, as in a real revision pair (docs/decisions.md): not keyed.
_SECTION_REFERENCE = re.compile(
    r"\(\s*(?:see\s+)?(?:sections?|sec\.|§|appendix)\s*~?[A-Z]?\d+(?:\.\d+)*\s*\)"
    r"|\(\s*(?:19|20)\d\d[a-z]?\s*\)|\[\d+(?:\s*[,\u2013-]\s*\d+)*\]",
    re.I,
)


def _key(heading: str) -> str:
    return " ".join(_WORD.findall(_SECTION_REFERENCE.sub(" ", heading).lower()))


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def similarity(old: str, new: str) -> float:
    return SequenceMatcher(None, _words(old), _words(new), autojunk=False).ratio()


def _numbers(text: str) -> dict:
    out = {}
    for written, value, _percent in figures(text):
        out.setdefault(value, written)
    return out


def _compare(old: Unit, new: Unit) -> Changed | None:
    if " ".join(old.text.split()) == " ".join(new.text.split()):
        return None
    before, after = _numbers(old.text), _numbers(new.text)
    old_sentences = {" ".join(s.split()) for s in _SENTENCE.split(old.text)}
    fresh = tuple(s.strip() for s in _SENTENCE.split(new.text) if " ".join(s.split()) not in old_sentences)
    return Changed(
        ref=new.ref,
        heading=new.heading,
        similarity=round(similarity(old.text, new.text), 2),
        numbers_removed=tuple(before[v] for v in before.keys() - after.keys()),
        numbers_added=tuple(after[v] for v in after.keys() - before.keys()),
        new_sentences=fresh,
    )


def _pairs(old: list[Unit], new: list[Unit]) -> tuple[list[tuple[Unit, Unit]], list[Unit], list[Unit]]:
    waiting: dict[str, list[Unit]] = defaultdict(list)
    for unit in old:
        waiting[_key(unit.heading)].append(unit)
    pairs, added = [], []
    for unit in new:
        same = waiting.get(_key(unit.heading))
        if same:
            pairs.append((same.pop(0), unit))
        else:
            added.append(unit)
    removed = [unit for units in waiting.values() for unit in units]
    for unit in list(added):
        scored = [(similarity(r.text, unit.text), r) for r in removed]
        best = max(scored, key=lambda pair: pair[0], default=None)
        if best and best[0] >= RENAMED_SIMILARITY:
            pairs.append((best[1], unit))
            removed.remove(best[1])
            added.remove(unit)
    return pairs, added, removed


def section_diff(old: Document, new: Document) -> RevisionDiff:
    """The section-level difference from `old` to `new`."""
    pairs, added, removed = _pairs(units_of(old), units_of(new))
    rewritten, edited, unchanged = [], [], 0
    for before, after in sorted(pairs, key=lambda pair: pair[1].order):
        change = _compare(before, after)
        if change is None:
            unchanged += 1
        elif change.similarity < REWRITTEN_BELOW or _key(before.heading) != _key(after.heading):
            rewritten.append(change)
        else:
            edited.append(change)
    return RevisionDiff(tuple(added), tuple(removed), tuple(rewritten), tuple(edited), unchanged)


def _named(ref: str, heading: str) -> str:
    return f"§{ref} {heading}" if ref != heading else f"§{heading}"


def diff_text(diff: RevisionDiff, *, previous: int, current: int) -> str:
    """The diff in plain lines for the prompt (escaped by the caller)."""
    lines = [f"Section-level comparison of v{previous} (previous) with v{current} (current) of the full text."]
    if diff.is_empty:
        return lines[0] + "\nThe text of the sections is the same in both versions."
    for unit in diff.added[:MAX_LISTED]:
        lines.append(f"Added in v{current}: {_named(unit.ref, unit.heading)}. Opens: {clip(unit.text, EXCERPT_TOKENS)}")
    for unit in diff.removed[:MAX_LISTED]:
        lines.append(f"Removed from v{previous}: {_named(unit.ref, unit.heading)}.")
    for change in diff.rewritten[:MAX_LISTED]:
        new = clip(" ".join(change.new_sentences), EXCERPT_TOKENS)
        kept = f"{change.similarity:.0%} of its words kept"
        lines.append(f"Rewritten: {_named(change.ref, change.heading)} ({kept}). New text: {new}")
    if diff.edited:
        lines.append(f"Edited slightly: {', '.join(_named(c.ref, c.heading) for c in diff.edited[:MAX_LISTED])}.")
    for change in diff.numbers_changed[:MAX_LISTED]:
        lines.append(
            f"Numbers in {_named(change.ref, change.heading)}: "
            f"no longer stated {', '.join(change.numbers_removed[:10]) or 'none'}; "
            f"newly stated {', '.join(change.numbers_added[:10]) or 'none'}."
        )
    lines.append(f"Unchanged sections: {diff.unchanged}.")
    return "\n".join(lines)
