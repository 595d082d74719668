"""Template helpers for guided readings: the sections in the reader's language,
whether summaries are configured, and times in Beijing time."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from django import template
from django.conf import settings
from django.utils import translation

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
def reading_sections(reading) -> list[tuple[str, str, str]]:
    """(key, label, text) for each non-empty section of a done reading, in the
    reader's language; the text is plain and escaped by the template."""
    if reading is None:
        return []
    language = _language()
    body = (reading.content or {}).get(language) or {}
    return [
        (key, _LABELS[language][key], str(body[key]))
        for key in _SECTIONS
        if isinstance(body.get(key), str) and body[key].strip()
    ]


@register.simple_tag
def llm_configured() -> bool:
    return bool(settings.ANTHROPIC_API_KEY)


@register.filter
def beijing(value: datetime | None) -> str:
    """A stored UTC time as Beijing time with the zone named."""
    if value is None:
        return ""
    local = value.astimezone(ZoneInfo(settings.DISPLAY_TIME_ZONE))
    return local.strftime("%Y-%m-%d %H:%M") + (" (北京时间)" if _language() == "zh" else " (Beijing time)")
