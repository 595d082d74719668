"""Every configured source has its row from the first `migrate` on, enabled,
so the sources page lists it before it has ever run."""

from __future__ import annotations

from django.conf import settings

from harvest.models import Source
from harvest.sources.registry import SOURCES


def configured_slugs() -> list[str]:
    """The sources the beat schedule runs."""
    scheduled = [*settings.HARVEST_SCHEDULES, *(slug for slug, _ in settings.ZONED_HARVEST_SCHEDULES.values())]
    return [slug for slug in dict.fromkeys(scheduled) if slug in SOURCES]


def ensure_sources() -> list[Source]:
    """Create the missing rows; an existing row (maybe disabled on purpose)
    is left as it is. Returns the rows created."""
    existing = set(Source.objects.filter(slug__in=configured_slugs()).values_list("slug", flat=True))
    missing = [Source(slug=slug, name=SOURCES[slug].name, enabled=True) for slug in configured_slugs()]
    return Source.objects.bulk_create([s for s in missing if s.slug not in existing], ignore_conflicts=True)


def create_configured_sources(*, using: str = "default", **kwargs) -> None:
    """post_migrate receiver (harvest/apps.py)."""
    if settings.PAPERTRAIL_CREATE_SOURCES and using == "default":
        ensure_sources()
