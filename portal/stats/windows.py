"""The statistics window: 24 hours ending at a moment, shown in Beijing time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.translation import gettext as _

from harvest.clock import display_zone

WINDOW_LENGTH = timedelta(hours=24)
_END_FORMATS = ("%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S")
# The library starts with arXiv; a window before it can hold nothing.
_EARLIEST_END = datetime(1991, 1, 1, tzinfo=ZoneInfo("UTC"))


class WindowError(ValueError):
    """A window end that cannot be used; the message is shown to the reader."""


@dataclass(frozen=True, slots=True)
class Window:
    """[start, end], both edges included (UTC datetimes)."""

    start: datetime
    end: datetime

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment <= self.end

    @property
    def end_param(self) -> str:
        """The `?end=` value (Beijing time, to the second) that selects this window."""
        return self.end.astimezone(display_zone()).strftime("%Y-%m-%dT%H:%M:%S")

    def previous(self) -> Window:
        return window_ending(self.start)


def window_ending(end: datetime) -> Window:
    return Window(start=end - WINDOW_LENGTH, end=end)


def current_window(now: datetime | None = None) -> Window:
    return window_ending(now or timezone.now())


def parse_window_end(text: str, *, now: datetime | None = None) -> datetime:
    """`?end=` of a past window, in Beijing time: `YYYY-MM-DDTHH:MM` (seconds
    optional) or a date `YYYY-MM-DD`, meaning the window that covers that whole
    Beijing day (it ends at the following midnight). Returns UTC."""
    now = now or timezone.now()
    value = text.strip()
    zone = display_zone()
    parsed: datetime | None = None
    for fmt in _END_FORMATS:
        try:
            parsed = datetime.strptime(value, fmt).replace(tzinfo=zone)
            break
        except ValueError:
            continue
    if parsed is None:
        try:
            day = datetime.strptime(value, "%Y-%m-%d").date()
        except ValueError:
            raise WindowError(
                _("end=%(value)s is not a Beijing time like 2026-11-13T08:31 or a date like 2026-11-13.")
                % {"value": text[:40]}
            ) from None
        parsed = datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)
    end = parsed.astimezone(ZoneInfo("UTC"))
    if end > now:
        raise WindowError(_("end=%(value)s is in the future; a past window ends before now.") % {"value": text[:40]})
    if end < _EARLIEST_END:
        raise WindowError(_("end=%(value)s is before 1991, when arXiv began.") % {"value": text[:40]})
    return end
