"""Template helpers for guided readings: the sections in the reader's language,
whether summaries are configured, and times in Beijing time."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.conf import settings
from django.utils import translation

from digests.providers import registry
from harvest.clock import reader_zone, reader_zone_is_default

register = template.Library()

_SECTIONS = ("takeaway", "problem", "method", "results", "limitations", "changes")
_LABELS = {
    "zh": {
        "takeaway": "一句话要点",
        "problem": "问题",
        "method": "方法",
        "results": "结果",
        "limitations": "局限",
        "changes": "本版改动",
    },
    "en": {
        "takeaway": "Takeaway",
        "problem": "Problem",
        "method": "Method",
        "results": "Results",
        "limitations": "Limitations",
        "changes": "What changed",
    },
}


def _language() -> str:
    return "zh" if (translation.get_language() or settings.LANGUAGE_CODE).startswith("zh") else "en"


@register.simple_tag
def reading_language() -> str:
    """ "zh" or "en": which half of a reading the current request shows."""
    return _language()


@register.simple_tag
def reading_sections(reading) -> list[tuple[str, str, str, list[dict]]]:
    """(key, label, text, citations) for each non-empty section of a done
    reading, in the reader's language; the text is plain and escaped by the
    template, each citation a {ref, heading, url} of the paper's section on arXiv."""
    if reading is None:
        return []
    language = _language()
    body = (reading.content or {}).get(language) or {}
    cited = (getattr(reading, "citations", None) or {}).get("fields") or {}
    return [
        (key, _LABELS[language][key], str(body[key]), [c for c in cited.get(key) or [] if c.get("url")])
        for key in _SECTIONS
        if isinstance(body.get(key), str) and body[key].strip()
    ]


@register.simple_tag
def reading_takeaway(reading) -> str:
    """A done reading's one-line takeaway in the reader's language ("" if none)."""
    if reading is None or reading.status != "done":
        return ""
    body = (reading.content or {}).get(_language()) or {}
    takeaway = body.get("takeaway")
    return takeaway.strip() if isinstance(takeaway, str) else ""


@register.simple_tag
def llm_configured() -> bool:
    return registry.is_configured("readings")


@register.filter
def beijing(value: datetime | None) -> str:
    """A stored UTC time as Beijing time with the zone named (or in the
    signed-in reader's own zone, named by its IANA name)."""
    if value is None:
        return ""
    zone = reader_zone()
    local = value.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    if not reader_zone_is_default():
        return f"{local} ({zone.key})"
    return local + ("（北京时间）" if _language() == "zh" else " (Beijing time)")
