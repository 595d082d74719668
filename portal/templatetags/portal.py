"""Template helpers of the portal: Beijing time, numbers, and the daily chart
drawn as inline SVG on the server (no script, nothing fetched)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from datetime import datetime

from django import template
from django.template.loader import get_template
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.trail.selectors import trail_unread_total
from harvest.clock import display_zone, reader_zone, reader_zone_is_default
from portal.stats.chart import DayPoint

register = template.Library()


def _format(local: datetime, precision: str) -> str:
    if precision == "date":
        return local.strftime("%Y-%m-%d")
    if precision == "second":
        return local.strftime("%Y-%m-%d %H:%M:%S")
    return local.strftime("%Y-%m-%d %H:%M")


@register.filter
def bjt(value: datetime | None, precision: str = "minute") -> str:
    """A UTC datetime as Beijing time (or the signed-in reader's own zone),
    `2026-11-13 08:31`; `—` for none. The template names the zone next to it."""
    if not value:
        return "—"
    return _format(value.astimezone(reader_zone()), precision)


@register.filter
def bjt_beijing(value: datetime | None, precision: str = "minute") -> str:
    """Always Beijing time, for what is defined in Beijing days (the overview's
    and briefings' windows), whose labels say so."""
    if not value:
        return "—"
    return _format(value.astimezone(display_zone()), precision)


@register.filter
def thousands(value: int | None) -> str:
    """21676 -> 21,676 (the separator the reference uses in both languages)."""
    return f"{value or 0:,}"


@register.filter
def first_items(values: list, count: int) -> list:
    return list(values or [])[: int(count)]


@register.filter
def slice_from(values: list, count: int) -> list:
    return list(values or [])[int(count) :]


# A stop (or a full-width one, which needs no space after it) ends a sentence.
_SENTENCE_END = re.compile("(?<=[.!?\u3002\uff01\uff1f])\\s+(?=[A-Z0-9$(\\[])|(?<=[\u3002\uff01\uff1f])")
FIRST_SENTENCE_MAX = 280


@register.filter
def first_sentence(text: str | None) -> str:
    """An abstract's first sentence (the compact card's one line), cut at a
    word past FIRST_SENTENCE_MAX characters; "e.g. " and "Fig. 2" do not end one."""
    flat = " ".join((text or "").split())
    found = _SENTENCE_END.search(flat, 40)
    sentence = flat[: found.start()] if found else flat
    if len(sentence) <= FIRST_SENTENCE_MAX:
        return sentence
    return sentence[:FIRST_SENTENCE_MAX].rsplit(" ", 1)[0] + " …"


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
    counted = [point for point in points if point.papers or point.revisions]
    if len(counted) < 2:  # one bar is no trend: say it in words
        return format_html('<p class="note" data-chart-words>{}</p>', _chart_in_words(counted, days=len(points)))
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


def _chart_in_words(counted: list[DayPoint], *, days: int) -> str:
    if not counted:
        return _("Nothing was included or revised in the last %(days)d days.") % {"days": days}
    [point] = counted
    return _(
        "In the last %(days)d days everything came on one day, %(day)s (Beijing time): %(papers)s new papers "
        "and %(revisions)s revisions; the daily chart appears once there are two days to compare."
    ) % {
        "days": days,
        "day": f"{point.day:%Y-%m-%d}",
        "papers": f"{point.papers:,}",
        "revisions": f"{point.revisions:,}",
    }


@register.filter
def bjtz(value: datetime | None) -> str:
    """Beijing time with the zone named: `2026-11-13 07:05(北京时间)`; in a
    reader's own zone, that zone's name instead."""
    if not value:
        return "—"
    if not reader_zone_is_default():
        # An IANA name reads the same in every language.
        return f"{bjt(value)} ({reader_zone().key})"
    return _("%(time)s (Beijing time)") % {"time": bjt(value)}


@register.simple_tag
def colon() -> str:
    """A label's colon as the page's language writes it: full-width in Chinese
    (no space after), ASCII and a space in English."""
    return "\uff1a" if get_language().startswith("zh") else ": "


@register.simple_tag
def parenthesised(text: str) -> str:
    """An aside in brackets as the page's language writes it: full-width
    brackets against the word in Chinese, a space and ASCII ones in English."""
    if get_language().startswith("zh"):
        return f"\uff08{text}\uff09"
    return f" ({text})"


@register.simple_tag
def zone_note() -> str:
    """One sentence naming the zone a block's times are shown in, said once per
    block (a list's header or footer) instead of after every time."""
    if reader_zone_is_default():
        return _("Times are Beijing time.")
    return _("Times are in %(zone)s.") % {"zone": reader_zone().key}


@register.filter
def http_url(value: str | None) -> str:
    """The URL if it is http(s), else empty: harvested links never become
    `javascript:` or `data:` hrefs."""
    text = (value or "").strip()
    return text if text.lower().startswith(("https://", "http://")) else ""


@register.filter
def pretty_json(value) -> str:
    return json.dumps(value or {}, indent=1, ensure_ascii=False, sort_keys=True, default=str)[:4000]


_WORD = re.compile(r"\w+")


def _matches_term(word: str, terms: Sequence[str]) -> bool:
    """A word of the text is one of the query's terms: the term itself, a word
    the stemmed lexeme begins (diffus -> diffusion), or its -y form (studi -> study)."""
    return any(word.startswith(term) or (term.endswith("i") and word == f"{term[:-1]}y") for term in terms)


@register.filter
def highlight(value: str | None, terms: Sequence[str] | None) -> SafeString:
    """The text escaped, with the words matching `terms` (query words or
    lexemes) wrapped in <mark>. Each piece is escaped on its own, so a term
    can never match inside an entity or tag."""
    text = str(value or "")
    wanted = [str(term).lower() for term in terms or () if len(str(term)) >= 2]
    if not wanted:
        return conditional_escape(text)
    pieces: list[str] = []
    last = 0
    for found in _WORD.finditer(text):
        if _matches_term(found.group(0).lower(), wanted):
            pieces.append(conditional_escape(text[last : found.start()]))
            pieces.append(format_html("<mark>{}</mark>", found.group(0)))
            last = found.end()
    pieces.append(conditional_escape(text[last:]))
    return SafeString("".join(pieces))


@functools.cache
def _card_template():
    return get_template("portal/_paper_card.html")


@register.simple_tag(takes_context=True)
def paper_card(context, card, in_trail: bool = False) -> SafeString:
    """A paper card (`portal.selectors.PaperCard`) as the overview, the library,
    the briefings and the trail show it: compact (title, authors, categories
    and one line, the abstract and reading opening in place) or full, as the
    signed-in reader chose; in the trail its own event badge gives way to the
    trail card's. The markup is the template's, every value auto-escaped; the
    template is loaded once per process. Record controls and thumbs up / down
    (when the page turned them on) take the page's request and CSRF token, without running the
    context processors again per card."""
    request = context.get("request")
    user = getattr(request, "user", None)
    density = getattr(user, "card_density", "") if user is not None and user.is_authenticated else ""
    density = density or "compact"
    values = {
        "card": card,
        "density": density,
        "in_trail": in_trail,
        "authors_shown": 3 if density == "compact" else 12,
    }
    if card.show_record or card.show_rating:
        values.update(
            csrf_token=context.get("csrf_token"),
            signed_in=bool(request and request.user.is_authenticated),
            next=request.get_full_path() if request else "",
        )
    return SafeString(_card_template().render(values))


@register.simple_tag(takes_context=True)
def trail_unread(context) -> int:
    """The signed-in reader's unread trail cards (one index-only count), for the navigation."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return 0
    return trail_unread_total(user=user)
