"""Source names as a reader reads them, in the page's language (the stored
`Source.name` is the operator's English name, kept for the admin and logs)."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils.timesince import timesince, timeuntil
from django.utils.translation import gettext_lazy as _

from harvest.models import Source
from harvest.sources.registry import SOURCES

register = template.Library()

SOURCE_LABELS = {
    "arxiv": _("arXiv nightly full record"),
    "arxiv_rss": _("arXiv daily announcements"),
    "arxiv_api": _("arXiv lookups by id and author"),
    "hf_daily": _("Hugging Face Daily Papers"),
}


_SLUG_OF_NAME = {source_class.name: slug for slug, source_class in SOURCES.items()}


@register.filter
def source_label(source: Source) -> str:
    return str(SOURCE_LABELS.get(source.slug, source.name))


@register.filter
def source_labels(names: list[str]) -> str:
    """Stored source names (the overview's failing sources) as the reader reads them, comma-separated."""
    return str(_(", ")).join(str(SOURCE_LABELS.get(_SLUG_OF_NAME.get(name, ""), name)) for name in names)


@register.filter
def ago(moment: datetime) -> str:
    """How long ago, in its largest unit ("3 小时", "3 hours"): a reader's
    sense of freshness, the exact time beside it."""
    return timesince(moment, depth=1)


@register.filter
def ahead(moment: datetime) -> str:
    """How long until, in its largest unit."""
    return timeuntil(moment, depth=1)
