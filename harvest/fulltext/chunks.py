"""A version's full text cut into passages for retrieval: section-aware (a
passage never crosses a section), bounded (at most CHUNK_WORDS words, a long
paragraph cut at sentence ends), each labelled with the section a citation
names (`3.1`, `B.2`) and the anchor arXiv's HTML opens it at.

A section without a number of its own (a LaTeX \\paragraph, `S3.SS2.SSS1.Px1`)
is labelled and linked as the numbered section it sits in; an unnumbered
top-level one (Acknowledgments, a PDF's ABSTRACT) by its heading. Sections are
taken in document order until PAPER_WORDS words are cut, so a long appendix is
what a bound leaves out (embedding costs about 4 ms a word on two busy cores,
docs/fulltext.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from harvest.fulltext.document import Document, Section

CHUNK_WORDS = 160
PAPER_WORDS = 10_000
_LABEL_LIMIT = 60
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[$])")


@dataclass(frozen=True)
class Chunk:
    position: int
    section: str  # the label a citation names: "3.1", "B.2", "Acknowledgments"
    anchor: str  # the labelled section's LaTeXML id ("" for a PDF)
    page: int | None
    heading: str
    text: str

    @property
    def embedded_text(self) -> str:
        """What the model reads: the heading gives a short passage its subject."""
        return f"{self.heading}. {self.text}" if self.heading else self.text


def section_label(number: str) -> str:
    """A section number as a citation writes it: "Appendix A" is "A"."""
    return " ".join(number.removeprefix("Appendix").split())


def normal_label(label: str) -> str:
    """Labels compare without case, spaces, "Section" or a trailing dot."""
    text = " ".join(label.split()).casefold().removeprefix("section").strip()
    return text.rstrip(".")


def _labels(sections: tuple[Section, ...]) -> Iterator[tuple[Section, str, str]]:
    numbered: list[tuple[int, str, str]] = []  # (level, label, anchor) of the open numbered sections
    for section in sections:
        while numbered and numbered[-1][0] >= section.level:
            numbered.pop()
        if section.number:
            label, anchor = section_label(section.number), section.anchor
            numbered.append((section.level, label, anchor))
        elif numbered:
            _, label, anchor = numbered[-1]
        else:
            page = f"page {section.page}" if section.page else ""
            label, anchor = (section.heading or page)[:_LABEL_LIMIT].strip(), section.anchor
        if label:
            yield section, label, anchor


def _pieces(text: str) -> Iterator[list[str]]:
    """A paragraph as runs of at most CHUNK_WORDS words, cut at sentence ends
    where it can be (a sentence longer than that is cut at a word)."""
    run: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        words = sentence.split()
        while len(words) > CHUNK_WORDS:
            if run:
                yield run
                run = []
            yield words[:CHUNK_WORDS]
            words = words[CHUNK_WORDS:]
        if run and len(run) + len(words) > CHUNK_WORDS:
            yield run
            run = []
        run += words
    if run:
        yield run


def chunks(document: Document) -> list[Chunk]:
    """The document's passages, in document order, within PAPER_WORDS words."""
    out: list[Chunk] = []
    budget = PAPER_WORDS
    for section, label, anchor in _labels(document.sections):
        run: list[str] = []
        pieces = [piece for paragraph in section.paragraphs for piece in _pieces(paragraph.text)]
        for piece in [*pieces, None]:
            if run and (piece is None or len(run) + len(piece) > CHUNK_WORDS):
                words = run[:budget]
                out.append(Chunk(len(out), label, anchor, section.page, section.heading, " ".join(words)))
                budget -= len(words)
                run = []
            if budget <= 0:
                return out
            if piece is not None:
                run += piece
    return out
