"""The stored shape of a paper's full text: one value type that owns its
conversions (to and from compressed JSON) and its reads (sections by anchor,
plain text for a length budget).

A section's `anchor` is the LaTeXML id arXiv's HTML uses (`S3.SS2`, `A1`), so
`https://arxiv.org/html/<id>v<n>#S3.SS2` opens it (the address readings and
answers link to: harvest.fulltext.selectors.section_url); a section read from
a PDF has none and names its page instead. Math is kept as its TeX between `$`
(inline) or `$$` (display), as the HTML's `alttext` gives it.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import asdict, dataclass, field

FORMAT = 1


@dataclass(frozen=True)
class Paragraph:
    text: str
    anchor: str = ""
    # "text", "equation" or "table" (a table's rows, cells joined by " | ")
    kind: str = "text"


@dataclass(frozen=True)
class Section:
    heading: str
    level: int
    anchor: str = ""
    number: str = ""
    page: int | None = None
    paragraphs: tuple[Paragraph, ...] = ()


@dataclass(frozen=True)
class Caption:
    kind: str  # "figure" or "table"
    text: str
    anchor: str = ""
    section: str = ""


@dataclass(frozen=True)
class Reference:
    text: str
    anchor: str = ""


@dataclass(frozen=True)
class Document:
    origin: str  # "html" or "pdf"
    title: str = ""
    abstract: str = ""
    licence: str = ""
    sections: tuple[Section, ...] = ()
    captions: tuple[Caption, ...] = ()
    references: tuple[Reference, ...] = ()
    pages: int | None = None
    truncated: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def text_chars(self) -> int:
        return sum(len(p.text) for s in self.sections for p in s.paragraphs)

    def section(self, anchor: str) -> Section | None:
        return next((s for s in self.sections if s.anchor == anchor), None)

    def to_json(self) -> dict:
        return {"format": FORMAT, **asdict(self)}

    def compress(self) -> bytes:
        raw = json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")).encode()
        return zlib.compress(raw, 9)

    @classmethod
    def from_json(cls, data: dict) -> Document:
        sections = tuple(
            Section(
                heading=s["heading"],
                level=s["level"],
                anchor=s.get("anchor", ""),
                number=s.get("number", ""),
                page=s.get("page"),
                paragraphs=tuple(Paragraph(**p) for p in s.get("paragraphs", ())),
            )
            for s in data.get("sections", ())
        )
        return cls(
            origin=data["origin"],
            title=data.get("title", ""),
            abstract=data.get("abstract", ""),
            licence=data.get("licence", ""),
            sections=sections,
            captions=tuple(Caption(**c) for c in data.get("captions", ())),
            references=tuple(Reference(**r) for r in data.get("references", ())),
            pages=data.get("pages"),
            truncated=data.get("truncated", False),
            notes=tuple(data.get("notes", ())),
        )

    @classmethod
    def decompress(cls, blob: bytes) -> Document:
        return cls.from_json(json.loads(zlib.decompress(bytes(blob))))
