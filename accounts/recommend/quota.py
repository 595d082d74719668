"""How many papers one reader's openings may add to the full-text queue in a
day: fetching is one request every few seconds for the whole site, so one
reader's browsing is capped before it crowds out everyone's saved papers."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core.cache import cache

OPENED_KEY = "fulltext:opened:{user_id}:{day}"
TWO_DAYS = 2 * 24 * 3600


def opened_fetch_allowed(user_id: int, *, now: datetime) -> bool:
    """Counts one opening against the reader's cap for `now`'s UTC day (an
    atomic increment); True while the count is within the cap."""
    limit = settings.PAPERTRAIL_FULLTEXT_OPENED_PER_DAY
    if limit == 0:
        return False
    key = OPENED_KEY.format(user_id=user_id, day=now.date().isoformat())
    cache.add(key, 0, timeout=TWO_DAYS)
    return cache.incr(key) <= limit
