"""Every source by its slug. Adding a source is adding a module and a line here."""

from __future__ import annotations

from harvest.sources.arxiv_api import ArxivApiSource
from harvest.sources.arxiv_rss import ArxivRssSource
from harvest.sources.base import SourceClient
from harvest.sources.hf_daily import HfDailySource
from harvest.sources.oai import ArxivOaiSource

SOURCES: dict[str, type[SourceClient]] = {
    ArxivOaiSource.slug: ArxivOaiSource,
    ArxivApiSource.slug: ArxivApiSource,
    HfDailySource.slug: HfDailySource,
    ArxivRssSource.slug: ArxivRssSource,
}


def get_source_class(slug: str) -> type[SourceClient]:
    try:
        return SOURCES[slug]
    except KeyError:
        raise KeyError(f"unknown source {slug!r}; known: {', '.join(sorted(SOURCES))}") from None
