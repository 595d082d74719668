"""The check of an answer's citations. Every citation, structured or written
inline as `[arXiv:ID vN]` or `[arXiv:ID vN §S]`, is checked against what the
model was actually given: a paper and version outside the context is removed
(counted in `dropped`); a section that no given passage of that version bears
is removed from the citation, which stays a citation of the paper (counted in
`dropped_sections`). The sections cited rightly are listed with their anchors,
so the answer page can link each to arXiv's HTML."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from digests.llm import InvalidReply
from harvest.fulltext.chunks import normal_label

PROMPT_CANARY = "PT-ASK-CANARY-83c2"
MAX_POINTS = 8
_SYNTHESIS_LIMIT = 2000
_POINT_LIMIT = 1500

# "[arXiv:2501.01234 v2]", "[arXiv 2501.01234v2 §4.1]", "[hep-th/9901001 v1]": a bracket holding an id, a
# version and perhaps a section.
_INLINE = re.compile(
    r"\[\s*(?:arXiv\s*:?\s*)?((?:\d{4}\.\d{4,5})|(?:[a-z\-]+(?:\.[A-Z]{2})?/\d{7}))\s*v(\d+)"
    r"\s*(?:,?\s*§\s*([^\[\]§]{1,60}?))?\s*\]"
)
_URL = re.compile(r"(?i)\b(?:https?|ftp)://\S+|\bwww\.\S+")


@dataclass(frozen=True)
class GivenSection:
    """A section of which passages were given: its label, as a citation names
    it, and where arXiv opens it; `positions` are the passages given."""

    label: str
    anchor: str = ""
    page: int | None = None
    positions: tuple[int, ...] = ()


Key = tuple[str, int]
Given = Mapping[Key, Mapping[str, GivenSection]]  # paper and version -> normal label -> section


def answer_schema() -> dict[str, Any]:
    citation = {
        "type": "object",
        "properties": {
            "arxiv_id": {"type": "string"},
            "version": {"type": "integer"},
            "section": {"type": "string"},
        },
        "required": ["arxiv_id", "version"],
        "additionalProperties": False,
    }
    point = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "citations": {"type": "array", "items": citation}},
        "required": ["text", "citations"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"synthesis": {"type": "string"}, "points": {"type": "array", "items": point}},
        "required": ["synthesis", "points"],
        "additionalProperties": False,
    }


_VALIDATOR = jsonschema.Draft202012Validator(answer_schema())


@dataclass
class CheckedAnswer:
    synthesis: str
    points: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0
    dropped_sections: int = 0
    # The sections cited rightly, once each in order of first citation.
    passages: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = {"synthesis": self.synthesis, "points": self.points}
        if self.passages or self.dropped_sections:
            answer |= {"passages": self.passages, "dropped_sections": self.dropped_sections}
        return answer


class _Checker:
    def __init__(self, allowed: Iterable[Key], given: Given) -> None:
        self.allowed = set(allowed)
        self.given = given
        self.answer = CheckedAnswer(synthesis="")

    def section(self, key: Key, label: str) -> GivenSection | None:
        """The given section a citation names, recorded as cited; None (and
        counted) when no passage given bears it."""
        found = self.given.get(key, {}).get(normal_label(label))
        if found is None:
            self.answer.dropped_sections += 1
            return None
        cited = {"arxiv_id": key[0], "version": key[1], "section": found.label, "anchor": found.anchor}
        cited |= {"page": found.page} if found.page else {}
        if cited not in self.answer.passages:
            self.answer.passages.append(cited)
        return found

    def text(self, text: str) -> str:
        """The text with inline citations made canonical, those outside the
        context removed, and URLs removed."""

        def inline(found: re.Match[str]) -> str:
            key = (found.group(1), int(found.group(2)))
            if key not in self.allowed:
                self.answer.dropped += 1
                return ""
            section = self.section(key, found.group(3)) if found.group(3) else None
            return f"[arXiv:{key[0]} v{key[1]} §{section.label}]" if section else f"[arXiv:{key[0]} v{key[1]}]"

        text = _INLINE.sub(inline, text)
        text = _URL.sub("", text)
        return re.sub(r"[ \t]{2,}", " ", text).strip()

    def citations(self, citations: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept: list[dict[str, Any]] = []
        for citation in citations:
            key = (str(citation["arxiv_id"]).removeprefix("arXiv:").strip(), int(citation["version"]))
            if key not in self.allowed:
                self.answer.dropped += 1
                continue
            shown: dict[str, Any] = {"arxiv_id": key[0], "version": key[1]}
            label = str(citation.get("section") or "").strip().lstrip("§").strip()
            section = self.section(key, label) if label else None
            if section is not None:
                shown |= {"section": section.label, "anchor": section.anchor}
                shown |= {"page": section.page} if section.page else {}
            if shown not in kept:
                kept.append(shown)
        return kept


def checked_answer(data: Any, *, allowed: Iterable[Key], given: Given | None = None) -> CheckedAnswer:
    """The answer in a reply's structured object, every citation checked
    against `allowed` (arxiv_id, version) and every section against `given`.
    Raises InvalidReply for a reply that is no answer."""
    errors = list(_VALIDATOR.iter_errors(data))
    if errors:
        raise InvalidReply(f"the reply does not match the answer schema: {errors[0].message[:200]}")
    texts = [data["synthesis"], *(point["text"] for point in data["points"])]
    if any(PROMPT_CANARY in text or "<papers>" in text or "</question>" in text for text in texts):
        raise InvalidReply("the reply repeats the instructions or the delimiters")
    checker = _Checker(allowed, given or {})
    answer = checker.answer
    answer.synthesis = checker.text(data["synthesis"][:_SYNTHESIS_LIMIT])
    for point in data["points"][:MAX_POINTS]:
        text = checker.text(point["text"][:_POINT_LIMIT])
        citations = checker.citations(point["citations"])
        if text:
            answer.points.append({"text": text, "citations": citations})
    if not answer.synthesis and not answer.points:
        raise InvalidReply("the answer is empty once foreign citations and links are removed")
    return answer
