"""The time zone people read times in. Times are stored in UTC and shown in
this zone (Beijing time unless DISPLAY_TIME_ZONE says otherwise)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from zoneinfo import ZoneInfo

from django.conf import settings


def display_zone() -> ZoneInfo:
    return ZoneInfo(settings.DISPLAY_TIME_ZONE)


# The zone the current reader chose, set per request by papertrail's
# UserPreferencesMiddleware; outside a signed-in request, the display zone.
_reader_zone: ContextVar[ZoneInfo | None] = ContextVar("reader_zone", default=None)


def reader_zone() -> ZoneInfo:
    return _reader_zone.get() or display_zone()


def reader_zone_is_default() -> bool:
    return reader_zone().key == settings.DISPLAY_TIME_ZONE


@contextmanager
def reading_in(zone: ZoneInfo) -> Iterator[None]:
    """Show times in `zone` for the duration (one request)."""
    token = _reader_zone.set(zone)
    try:
        yield
    finally:
        _reader_zone.reset(token)
