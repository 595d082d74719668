"""A record's private note: Markdown rendered by markdown-it-py with raw HTML
off, then sanitised by nh3 to a small allow-list. TeX is kept out of the
Markdown parser (its `\\(` and `_` are Markdown syntax too) and put back as
escaped text, for the page's KaTeX to render."""

from __future__ import annotations

import html
import re

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

MAX_NOTE_LENGTH = 50_000
TEXT_TAGS = {"p", "br", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li", "hr", "a"}
HEADING_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
TABLE_TAGS = {"table", "thead", "tbody", "tr", "th", "td"}
ALLOWED_TAGS = TEXT_TAGS | HEADING_TAGS | TABLE_TAGS
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}

_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|\$[^$\n]+?\$", re.DOTALL)
# Private-use characters: Markdown leaves them alone and nobody types them.
_HOLE = "\ue000{}\ue001"
_HOLES = re.compile("\ue000(\\d+)\ue001")
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(["strikethrough", "table"])


def render_note(text: str) -> SafeString:
    """The note as safe HTML (empty for an empty note)."""
    if not text.strip():
        return mark_safe("")
    spans: list[str] = []

    def hold(found: re.Match) -> str:
        spans.append(found.group(0))
        return _HOLE.format(len(spans) - 1)

    source = _MATH.sub(hold, text.replace("\ue000", "").replace("\ue001", ""))
    cleaned = nh3.clean(
        _markdown.render(source),
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
    restored = _HOLES.sub(lambda found: html.escape(spans[int(found.group(1))], quote=False), cleaned)
    return mark_safe(restored)  # noqa: S308 - sanitised by nh3 above, TeX escaped
