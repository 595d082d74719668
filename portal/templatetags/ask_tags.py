"""The ask box and the answer's Markdown, for the pages of "ask the library":
a paper's citation links to its version here, a section's to arXiv's HTML
at the section's anchor (or the PDF at its page)."""

from __future__ import annotations

import functools
import re
from html import escape
from html.parser import HTMLParser

from django import template
from django.template.loader import get_template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from accounts.records.selectors import render_note
from harvest.fulltext.chunks import normal_label
from harvest.fulltext.selectors import section_url
from portal.asking import SCOPE_CHOICES, box_state

register = template.Library()

# A citation as the answer's check leaves it: "[arXiv:2501.01234 v2]" or "[arXiv:2501.01234 v2 §4.1]" (only
# retrieved papers and sections of the passages given remain).
_CITATION = re.compile(
    r"\[arXiv:((?:\d{4}\.\d{4,5})|(?:[a-z\-]+(?:\.[A-Z]{2})?/\d{7})) v(\d+)(?: §([^\[\]§]{1,60}))?\]"
)


@register.filter
def section_link(citation: dict) -> str:
    """arXiv's address of a cited section (a citation or a cited passage of the answer)."""
    return section_url(
        arxiv_id=citation["arxiv_id"],
        version=int(citation["version"]),
        anchor=citation.get("anchor", ""),
        page=citation.get("page"),
    )


def _section_links(passages) -> dict[tuple[str, int, str], str]:
    return {
        (item["arxiv_id"], int(item["version"]), normal_label(item["section"])): section_link(item)
        for item in passages or ()
    }


class _CitationLinker(HTMLParser):
    """Sanitised HTML again, with each citation in its text (never inside a
    tag or an attribute, such as a link's title) made a link to the version."""

    def __init__(self, sections: dict[tuple[str, int, str], str]) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.sections = sections

    def handle_starttag(self, tag: str, attrs) -> None:
        self.out.append(self.get_starttag_text() or "")

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag: str) -> None:
        self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        last = 0
        for found in _CITATION.finditer(data):
            self.out.append(escape(data[last : found.start()]))
            arxiv_id, version, section = found.group(1), int(found.group(2)), found.group(3)
            url = reverse("portal:paper_detail", args=[arxiv_id]) + f"#v{version}"
            if section:
                url = self.sections.get((arxiv_id, version, normal_label(section)), url)
                self.out.append(
                    format_html(
                        '<a class="citation" href="{}" data-section="{}">[arXiv:{} v{} §{}]</a>',
                        url,
                        section,
                        arxiv_id,
                        version,
                        section,
                    )
                )
            else:
                self.out.append(format_html('<a class="citation" href="{}">[arXiv:{} v{}]</a>', url, arxiv_id, version))
            last = found.end()
        self.out.append(escape(data[last:]))


@register.filter
def answer_markdown(text: str, answer=None) -> SafeString:
    """The answer's text through the research record's note renderer (Markdown,
    raw HTML off, nh3's allow-list, TeX kept for KaTeX), each citation a link
    to the paper's version, or to arXiv at a section among the `answer`'s
    cited passages."""
    passages = answer.get("passages") if isinstance(answer, dict) else None
    linker = _CitationLinker(_section_links(passages))
    linker.feed(str(render_note(str(text or ""))))
    linker.close()
    return mark_safe("".join(linker.out))  # noqa: S308 - nh3's tags kept as they were, every text escaped again


@functools.cache
def _box_template():
    return get_template("portal/_ask_box.html")


@register.simple_tag(takes_context=True)
def ask_box(context, paper=None, folded: bool = False, scope: str = "library") -> SafeString:
    """The "问 AI / Ask" box: a question to the library (or about `paper`),
    or a sentence saying what is missing (an API key, signing in). Folded
    (the library, the trail): one line that opens in place, so the page still
    opens on its papers. `scope` is the scope chosen first (the trail asks
    within the reader's follows)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    values = {
        **box_state(user),
        "paper": paper,
        "folded": folded,
        "scope": scope,
        "scopes": SCOPE_CHOICES,
        "csrf_token": context.get("csrf_token"),
    }
    return SafeString(_box_template().render(values))
