"""The time zone people read times in. Times are stored in UTC and shown in
this zone (Beijing time unless DISPLAY_TIME_ZONE says otherwise)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.conf import settings


def display_zone() -> ZoneInfo:
    return ZoneInfo(settings.DISPLAY_TIME_ZONE)
