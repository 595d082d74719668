"""What of a paper's full text a guided reading is written from: the
sections that fit the token budget, chosen by role (docs/fulltext.md,
"Which sections a reading reads", has the rule and its measurement).

The paper is cut into units: each numbered section (or titled unnumbered
one) with the unnumbered paragraph-headed parts under it and the captions
placed in it. Each unit gets a role from its heading (its parent's when its
own says nothing). The rule, "heads first, by role": every unit, in role
order (introduction, results, conclusion, method, the rest), first gets its
head (up to HEAD_TOKENS); what budget is left then extends them to their
whole text in the same order; related work and appendices, in that order,
get what remains the same way. The chosen units go to
the model in the paper's order, each with the `ref` a citation names.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from harvest.fulltext.document import Document, Section

# The first ~300 words of a section: its opening paragraph or two, which
# state what the section does (and, for a results section, its main figures).
HEAD_TOKENS = 400

ROLE_ORDER = ("introduction", "results", "conclusion", "method", "other", "related", "appendix")
_ROLE_WORDS = (
    ("skip", ("acknowledg", "reference", "bibliograph", "author contribution", "funding")),
    ("introduction", ("introduction",)),
    ("related", ("related work", "background", "preliminar", "prior work")),
    ("conclusion", ("conclusion", "discussion", "limitation", "future work", "broader impact", "summary")),
    (
        "results",
        ("result", "experiment", "evaluation", "ablation", "analysis", "finding", "benchmark", "study", "comparison"),
    ),
    ("method", ("method", "approach", "model", "design", "architecture", "framework", "setup", "dataset", "training")),
)
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_SENTENCE_END = re.compile(r"[.!?。！？]\s")
_APPENDIX_NUMBER = re.compile(r"^(?:Appendix\s+)?[A-Z](?:\.\d+)*$")


def estimate_tokens(text: str) -> int:
    """A CJK character is a token, other text four characters a token (the
    rule the project's stand-ins count by; close to real English tokenisers)."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


@dataclass(frozen=True)
class Unit:
    ref: str  # what a citation names: "3.2", "B.1", or the heading of an unnumbered section
    heading: str
    anchor: str
    page: int | None
    role: str
    text: str
    order: int


@dataclass(frozen=True)
class Chosen:
    unit: Unit
    text: str  # the unit's text, or its head when the budget did not reach further

    @property
    def whole(self) -> bool:
        return len(self.text) == len(self.unit.text)


def heading_role(heading: str) -> str:
    lowered = heading.lower()
    for role, words in _ROLE_WORDS:
        if any(word in lowered for word in words):
            return role
    return "other"


def _ref(section: Section) -> str:
    return section.number.removeprefix("Appendix").strip() or section.heading.strip()[:60]


def _is_appendix(section: Section) -> bool:
    return section.anchor.startswith("A") or bool(_APPENDIX_NUMBER.match(section.number))


def units_of(document: Document) -> list[Unit]:
    """The paper's citable units in order; front matter, the abstract (sent
    on its own) and acknowledgements or references are left out."""
    captions: dict[str, list[str]] = {}
    for caption in document.captions:
        captions.setdefault(caption.section, []).append(caption.text)
    groups: list[tuple[Section, list[Section], str]] = []
    top_role, in_appendix = "other", False
    for section in document.sections:
        if section.level == 1:
            in_appendix = _is_appendix(section)
            top_role = heading_role(section.heading)
        titled = bool(section.number) or (section.level == 1 and section.heading.strip())
        if titled or not groups:
            own = heading_role(section.heading)
            role = "appendix" if in_appendix else (own if own != "other" else top_role)
            if section.heading.strip().lower() in ("", "abstract") or "skip" in (own, top_role):
                role = "skip"
            groups.append((section, [section], role))
        else:
            groups[-1][1].append(section)
    units = []
    for head, members, role in groups:
        parts = []
        for member in members:
            if member is not head and member.heading:
                parts.append(member.heading + ".")
            parts.extend(p.text for p in member.paragraphs)
            for key in {member.anchor, member.number} - {""}:
                parts.extend(captions.get(key, ()))
        text = "\n".join(part for part in parts if part.strip())
        if role != "skip" and text:
            units.append(Unit(_ref(head), head.heading, head.anchor, head.page, role, text, len(units)))
    return units


def clip(text: str, tokens: int) -> str:
    """The start of `text` within `tokens`, ended at a sentence where one is near."""
    if estimate_tokens(text) <= tokens:
        return text
    cut = text[: max(tokens, 0) * 4]
    while cut and estimate_tokens(cut) > tokens:
        cut = cut[: int(len(cut) * 0.9)]
    ends = [m.end() for m in _SENTENCE_END.finditer(cut)]
    return cut[: ends[-1]].rstrip() if ends and ends[-1] > len(cut) // 2 else cut.rstrip()


def select_units(units: list[Unit], *, budget: int, head: int = HEAD_TOKENS) -> list[Chosen]:
    """The rule: heads first, by role, then whole units in the same order;
    the body of the paper before its related work and appendices."""
    taken: dict[int, str] = {}
    left = budget
    for tier in (ROLE_ORDER[:5], ROLE_ORDER[5:]):
        ranked = sorted((u for u in units if u.role in tier), key=lambda u: (ROLE_ORDER.index(u.role), u.order))
        for unit in ranked:
            piece = clip(unit.text, min(head, left))
            if piece:
                taken[unit.order] = piece
                left -= estimate_tokens(piece)
        for unit in ranked:
            if left <= 0:
                break
            if unit.order in taken and len(taken[unit.order]) < len(unit.text):
                before = estimate_tokens(taken[unit.order])
                taken[unit.order] = clip(unit.text, before + left)
                left -= estimate_tokens(taken[unit.order]) - before
    return [Chosen(unit, taken[unit.order]) for unit in units if unit.order in taken]


def select_prefix(units: list[Unit], *, budget: int) -> list[Chosen]:
    """The rule measured against: the paper from its start until the budget ends."""
    chosen, left = [], budget
    for unit in units:
        if left <= 0:
            break
        piece = clip(unit.text, left)
        if piece:
            chosen.append(Chosen(unit, piece))
            left -= estimate_tokens(piece)
    return chosen
