"""arXiv's HTML rendering (LaTeXML) read into a `Document`.

LaTeXML marks everything with `ltx_` classes and stable ids: a section is
`<section class="ltx_section" id="S3">` with an `<h2 class="ltx_title
ltx_title_section">` heading (its number in `span.ltx_tag`), a paragraph is
`div.ltx_para` (`S3.p1`), a figure or table `figure.ltx_figure` /
`figure.ltx_table` with a `figcaption` (older LaTeXML, 0.8.0 as the ACL
Anthology ran it in 2014: `div.ltx_figure` / `div.ltx_table` with a
`div.ltx_caption`), a reference `li.ltx_bibitem`
(`bib.bib12`), and every formula a `<math alttext="TeX">`. arXiv adds the
licence it states for the paper as `#license-tr`.

A page without `ltx_document` or without any section or paragraph is not a
conversion (arXiv's error pages, a failed build): `NotAConversion`, and the
caller reads the PDF instead.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from harvest.fulltext.document import Caption, Document, Paragraph, Reference, Section

SECTION_LEVELS = {
    "ltx_chapter": 1,
    "ltx_section": 1,
    "ltx_appendix": 1,
    "ltx_subsection": 2,
    "ltx_subsubsection": 3,
    "ltx_paragraph": 4,
}
# What is not the paper's running text: footnote marks and bodies (kept out so
# sentences stay whole), the reporting widgets arXiv adds, scripts.
SKIPPED_CLASSES = {"ltx_note", "ltx_rdf", "ltx_ERROR", "ltx_page_navbar", "ltx_TOC", "package-alerts"}
SKIPPED_TAGS = {"script", "style", "annotation", "annotation-xml", "button", "nav", "svg"}
_SPACE = re.compile(r"\s+")
# A table is kept as text up to this many rows (a results table is rarely longer;
# a 3,000-row appendix table is not running text).
MAX_TABLE_ROWS = 200


class NotAConversion(ValueError):
    """The page is not a LaTeXML rendering of the paper."""


def _classes(element: etree._Element) -> set[str]:
    return set((element.get("class") or "").split())


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _math_tex(element: etree._Element) -> str:
    tex = element.get("alttext")
    if tex is None:
        annotation = element.find(".//{*}annotation[@encoding='application/x-tex']")
        tex = annotation.text if annotation is not None and annotation.text else element.text_content()
    tex = _squash(tex).removeprefix("\\displaystyle ").strip()
    return f"$${tex}$$" if element.get("display") == "block" else f"${tex}$"


def _text(element: etree._Element) -> str:
    """The element's text with each formula as its TeX, footnotes and page
    furniture left out."""
    parts: list[str] = []

    def walk(node: etree._Element) -> None:
        tag = node.tag if isinstance(node.tag, str) else ""
        local = tag.rsplit("}", 1)[-1].lower()
        if local == "math":
            parts.append(_math_tex(node))
        elif local not in SKIPPED_TAGS and not (_classes(node) & SKIPPED_CLASSES) and tag:
            if node.text:
                parts.append(node.text)
            for child in node:
                walk(child)
                if child.tail:
                    parts.append(child.tail)
            if local in ("br", "p", "div", "li", "td", "th"):
                parts.append(" ")

    walk(element)
    return _squash("".join(parts))


def _heading(section: etree._Element) -> tuple[str, str]:
    """(number, heading) of a section from its first `ltx_title` child."""
    for child in section:
        if isinstance(child.tag, str) and "ltx_title" in _classes(child):
            number = ""
            for span in child.iter():
                if isinstance(span.tag, str) and "ltx_tag" in _classes(span):
                    number = _squash(span.text_content())
                    break
            full = _text(child)
            heading = full[len(number) :].strip() if number and full.startswith(number) else full
            return number.rstrip("."), heading
    return "", ""


def _table_rows(table: etree._Element) -> str:
    rows = []
    for row in table.iter("tr"):
        cells = [_text(cell) for cell in row if isinstance(cell.tag, str) and cell.tag in ("td", "th")]
        if any(cells):
            rows.append(" | ".join(cells))
        if len(rows) >= MAX_TABLE_ROWS:
            break
    return "\n".join(rows)


def _is_float(element: etree._Element, css_class: str) -> bool:
    return element.tag in ("figure", "div") and css_class in _classes(element)


def _table_block(float_: etree._Element) -> list[Paragraph]:
    table = float_.find(".//table")
    if table is None:
        return []
    return [Paragraph(text=_table_rows(table), anchor=float_.get("id", ""), kind="table")]


def _caption_of(float_: etree._Element) -> etree._Element | None:
    caption = float_.find("figcaption")
    if caption is None:
        caption = next((c for c in float_ if isinstance(c.tag, str) and "ltx_caption" in _classes(c)), None)
    return caption


def _own_blocks(section: etree._Element) -> list[Paragraph]:
    """The paragraphs, display equations and tables that belong to this
    section and not to a section nested in it, in document order."""
    blocks: list[Paragraph] = []

    def walk(node: etree._Element) -> None:
        for child in node:
            if not isinstance(child.tag, str):
                continue
            classes = _classes(child)
            if classes & SECTION_LEVELS.keys() or classes & SKIPPED_CLASSES or "ltx_bibliography" in classes:
                continue
            if "ltx_para" in classes or ("ltx_p" in classes and child.tag == "p" and node is section):
                blocks.extend(_para_blocks(child))
            elif _is_float(child, "ltx_table"):
                blocks.extend(_table_block(child))
            elif child.tag == "figure" or "ltx_figure" in classes:
                continue  # captions are kept apart
            else:
                walk(child)

    walk(section)
    return [block for block in blocks if block.text]


def _para_blocks(para: etree._Element) -> list[Paragraph]:
    """A `div.ltx_para` may hold text and display equations in turn; each
    equation becomes a block of its own so its anchor (`S3.E2`) is kept."""
    blocks: list[Paragraph] = []
    text_parts: list[str] = []
    anchor = para.get("id", "")
    for child in para:
        if not isinstance(child.tag, str):
            continue
        classes = _classes(child)
        if child.tag == "table" and classes & {"ltx_equation", "ltx_equationgroup", "ltx_eqn_table"}:
            maths = [_math_tex(m) for m in child.iter("{*}math", "math")]
            eq_anchor = child.get("id", "") or next(
                (row.get("id", "") for row in child.iter("tr") if row.get("id")), ""
            )
            blocks.append(Paragraph(text=" ".join(maths), anchor=eq_anchor, kind="equation"))
        elif _is_float(child, "ltx_table"):
            blocks.extend(_table_block(child))
        elif child.tag == "figure" or "ltx_figure" in classes:
            continue
        else:
            text_parts.append(_text(child))
    text = _squash(" ".join(text_parts)) if text_parts else _text(para) if not blocks else ""
    if text:
        blocks.insert(0, Paragraph(text=text, anchor=anchor, kind="text"))
    return blocks


def _captions(root: etree._Element) -> list[Caption]:
    captions = []
    for figure in root.iter("figure", "div"):
        classes = _classes(figure)
        if figure.tag == "div" and not classes & {"ltx_figure", "ltx_table"}:
            continue
        caption = _caption_of(figure)
        if caption is None:
            continue
        kind = "table" if "ltx_table" in classes else "figure"
        section = next(
            (a.get("id", "") for a in figure.iterancestors() if _classes(a) & SECTION_LEVELS.keys()),
            "",
        )
        captions.append(Caption(kind=kind, text=_text(caption), anchor=figure.get("id", ""), section=section))
    return captions


def _references(root: etree._Element) -> list[Reference]:
    return [
        Reference(text=_text(item), anchor=item.get("id", ""))
        for item in root.iter("li")
        if "ltx_bibitem" in _classes(item)
    ]


def _first(root: etree._Element, css_class: str, tag: str = "*") -> etree._Element | None:
    return next((e for e in root.iter(tag) if isinstance(e.tag, str) and css_class in _classes(e)), None)


def parse_html(content: bytes) -> Document:
    """The `Document` of one arXiv HTML page (bytes as served)."""
    try:
        root = lxml.html.document_fromstring(content)
    except (etree.ParserError, ValueError) as exc:
        raise NotAConversion(f"the page is not readable HTML: {exc}") from exc
    article = _first(root, "ltx_document")
    if article is None:
        raise NotAConversion("the page has no LaTeXML document (ltx_document)")
    sections: list[Section] = []
    for element in article.iter():
        if not isinstance(element.tag, str):
            continue
        levels = [SECTION_LEVELS[c] for c in _classes(element) if c in SECTION_LEVELS]
        if not levels or element.tag == "li":
            continue
        number, heading = _heading(element)
        sections.append(
            Section(
                heading=heading,
                level=min(levels),
                anchor=element.get("id", ""),
                number=number,
                paragraphs=tuple(_own_blocks(element)),
            )
        )
    if not any(s.paragraphs for s in sections):
        raise NotAConversion("the page has no section with text")
    title = _first(article, "ltx_title_document")
    abstract = _first(article, "ltx_abstract")
    licence = root.get_element_by_id("license-tr", None)
    abstract_text = _text(abstract) if abstract is not None else ""
    return Document(
        origin="html",
        title=_text(title) if title is not None else "",
        abstract=re.sub(r"^Abstract\s*", "", abstract_text),
        licence=_squash(licence.text_content()) if licence is not None else "",
        sections=tuple(sections),
        captions=tuple(_captions(article)),
        references=tuple(_references(article)),
    )
