"""Template helpers of the portal: Beijing time, numbers, and the daily chart
drawn as inline SVG on the server (no script, nothing fetched)."""

from __future__ import annotations

import html
import json
from datetime import datetime
from urllib.parse import quote

from django import template
from django.template.defaultfilters import linebreaksbr
from django.template.loader import get_template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from harvest.stats.chart import DayPoint
from harvest.stats.windows import display_zone

register = template.Library()


@register.filter
def bjt(value: datetime | None, precision: str = "minute") -> str:
    """A UTC datetime as Beijing time, `2026-11-13 08:31`; `—` for none.
    The template names the zone next to it."""
    if not value:
        return "—"
    local = value.astimezone(display_zone())
    if precision == "date":
        return local.strftime("%Y-%m-%d")
    if precision == "second":
        return local.strftime("%Y-%m-%d %H:%M:%S")
    return local.strftime("%Y-%m-%d %H:%M")


@register.filter
def thousands(value: int | None) -> str:
    """21676 -> 21,676 (the separator the reference uses in both languages)."""
    return f"{value or 0:,}"


@register.filter
def first_items(values: list, count: int) -> list:
    return list(values or [])[: int(count)]


@register.filter
def more_than(values: list, count: int) -> int:
    """How many items follow the first `count`."""
    return max(0, len(values or []) - int(count))


_CHART_WIDTH = 560
_CHART_HEIGHT = 150
_PLOT_TOP = 12
_PLOT_BOTTOM = 126


@register.simple_tag
def day_chart(points: list[DayPoint]) -> SafeString:
    """Grouped bars, papers and revisions per Beijing day, with a title per bar
    for the exact numbers and a caption that names the scale."""
    if not points:
        return SafeString("")
    peak = max(max(p.papers, p.revisions) for p in points) or 1
    slot = _CHART_WIDTH / len(points)
    bar = max(1.0, slot * 0.38)
    height = _PLOT_BOTTOM - _PLOT_TOP
    bars = []
    for index, point in enumerate(points):
        x = index * slot + slot * 0.1
        for offset, value, css, label in (
            (0.0, point.papers, "chart__papers", _("new papers")),
            (bar, point.revisions, "chart__revisions", _("revisions")),
        ):
            h = round(height * value / peak, 1)
            bars.append(
                (
                    css,
                    round(x + offset, 1),
                    round(_PLOT_BOTTOM - h, 1),
                    round(bar, 1),
                    h,
                    f"{point.day:%Y-%m-%d} · {label} {value:,}",
                )
            )
    rects = format_html_join(
        "",
        '<rect class="{}" x="{}" y="{}" width="{}" height="{}"><title>{}</title></rect>',
        bars,
    )
    last = len(points) - 1
    ticks = format_html_join(
        "",
        '<text class="chart__tick" x="{}" y="{}" text-anchor="{}">{}</text>',
        (
            (
                _CHART_WIDTH if index == last else round(index * slot + slot * 0.1, 1),
                _CHART_HEIGHT - 6,
                "end" if index == last else "start",
                f"{point.day:%m-%d}",
            )
            for index, point in enumerate(points)
            if (index % 7 == 0 and last - index >= 3) or index == last
        ),
    )
    return format_html(
        '<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">'
        '<line class="chart__axis" x1="0" y1="{bottom}" x2="{w}" y2="{bottom}"></line>'
        '<text class="chart__peak" x="2" y="10">{peak}</text>{rects}{ticks}</svg>',
        w=_CHART_WIDTH,
        h=_CHART_HEIGHT,
        bottom=_PLOT_BOTTOM,
        label=_("Papers and revisions per day, Beijing time, last %(days)d days") % {"days": len(points)},
        peak=f"{peak:,}",
        rects=rects,
        ticks=ticks,
    )


@register.filter
def bjtz(value: datetime | None) -> str:
    """Beijing time with the zone named: `2026-11-13 07:05(北京时间)`."""
    if not value:
        return "—"
    return _("%(time)s (Beijing time)") % {"time": bjt(value)}


@register.filter
def http_url(value: str | None) -> str:
    """The URL if it is http(s), else empty: harvested links never become
    `javascript:` or `data:` hrefs."""
    text = (value or "").strip()
    return text if text.lower().startswith(("https://", "http://")) else ""


@register.filter
def pretty_json(value) -> str:
    return json.dumps(value or {}, indent=1, ensure_ascii=False, sort_keys=True, default=str)[:4000]


_CARD_AUTHORS = 12
_PRIMARY = ' class="primary"'


@register.simple_tag
def paper_card(card) -> SafeString:
    """A paper card (`harvest.selectors.PaperCard`) as the overview, the
    library and the briefings show it: badge, arXiv id, title, authors (the
    first twelve, each linking to the library filtered by that author), the
    original abstract, what a briefing's window brought, the guided reading,
    categories (primary first) and links.

    Built in Python rather than a template include (issue 6): the template
    took about 1 ms a card, a third of a library page of 20 cards at a million
    papers; this takes a fifth of that, with the same markup (it replaced
    portal/_paper_card.html, compared byte for byte on 840 cards of the
    million-paper library in both languages). Every value is escaped with
    `html.escape`, exactly as Django's `escape` does; the guided reading is
    still rendered by its own template."""
    e = html.escape
    paper = card.paper
    detail_url = e(reverse("portal:paper_detail", args=[paper.arxiv_id]))
    list_url = e(reverse("portal:paper_list"))
    arxiv_id = e(paper.arxiv_id)
    # Messages are looked up outside the f-strings: makemessages (xgettext)
    # does not read calls inside an f-string's braces.
    if card.is_revision:
        revision = e(_("Revision"))
        badge = f'<span class="badge badge--revision">{revision} · v{paper.latest_version}</span>'
    else:
        new_paper = e(_("New paper"))
        badge = f'<span class="badge">{new_paper} · v{paper.latest_version}</span>'
    ai_related = e(_("AI-related"))
    ai = f'<span class="badge badge--ai">{ai_related}</span>' if paper.ai_related else ""
    hf_pick = e(_("HF pick ▲%(n)s") % {"n": card.top_upvotes})
    hf = f'<span class="badge badge--hf">{hf_pick}</span>' if card.picks else ""
    authors = paper.authors or []
    names = ", ".join(
        f'<a href="{list_url}?author={e(quote(name, safe="/"))}">{e(name)}</a>' for name in authors[:_CARD_AUTHORS]
    )
    if len(authors) > _CARD_AUTHORS:
        names += " " + e(_("and %(more)s more") % {"more": len(authors) - _CARD_AUTHORS})
    window = ""
    if card.window_versions:
        links = ", ".join(f'<a href="{detail_url}#v{n}">v{n}</a>' for n in card.window_versions)
        new_in_window = e(_("New in this window"))
        window = f'<p class="note">{new_in_window}: {links}</p>'
    reading_template = get_template("digests/_reading.html")
    if card.window_readings:
        readings = "".join(
            f'<p class="note">v{reading.version.number}</p>' + reading_template.render({"reading": reading})
            for reading in card.window_readings
        )
    elif card.reading:
        readings = reading_template.render({"reading": card.reading})
    else:
        readings = ""
    categories = "".join(
        f'<li{_PRIMARY if index == 0 else ""}><a href="{list_url}?category={e(quote(code, safe="/"))}">'
        f"{e(code)}</a></li>"
        for index, code in enumerate(paper.categories or [])
    )
    hf_links = "".join(
        f'<a href="{e(url)}" rel="noopener noreferrer nofollow">Hugging Face</a>'
        for url in (http_url(pick.url) for pick in card.picks)
        if url
    )
    abstract = linebreaksbr(paper.abstract, autoescape=True)
    updated, included = e(_("updated")), e(_("included"))
    original_abstract, arxiv_abstract = e(_("Original abstract")), e(_("arXiv abstract"))
    return SafeString(
        f'\n<article class="paper-card" data-arxiv-id="{arxiv_id}">\n'
        '  <p class="paper-card__meta">\n'
        f"    {badge}\n"
        f'    <a href="{detail_url}">arXiv:{arxiv_id}</a>\n'
        f"    {ai}\n"
        f"    {hf}\n"
        f'    <span class="muted">{updated} {e(bjt(paper.updated, "date"))} · '
        f"{included} {e(bjt(paper.included_at))}</span>\n"
        "  </p>\n"
        f'  <h3 class="paper-card__title tex"><a href="{detail_url}">{e(paper.title)}</a></h3>\n'
        f'  <p class="paper-card__authors">{names}</p>\n'
        '  <div class="abstract">\n'
        f"    <h4>{original_abstract}</h4>\n"
        f'    <p class="tex">{abstract}</p>\n'
        "  </div>\n"
        f"  {window}\n"
        f"  {readings}\n"
        f'  <ul class="categories">{categories}</ul>\n'
        '  <p class="links">\n'
        f'    <a href="{e(paper.abs_url)}" rel="noopener noreferrer">{arxiv_abstract}</a>\n'
        f'    <a href="{e(paper.pdf_url)}" rel="noopener noreferrer">PDF</a>\n'
        f"    {hf_links}\n"
        "  </p>\n"
        "</article>\n\n"
    )
