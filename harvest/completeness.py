"""Reads about arXiv's announcements: did the library get everything arXiv
announced, which announcement came last, and when the next one is due."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from harvest.models import Announcement, AnnouncementItem, Paper
from harvest.sources.arxiv_rss import ARXIV_ZONE

# arXiv announces Sunday to Thursday at 20:00 US Eastern (Python weekdays).
_ANNOUNCEMENT_WEEKDAYS = frozenset((6, 0, 1, 2, 3))
_ANNOUNCEMENT_TIME = time(20, 0)
# An announcement lists what was submitted before 14:00 US Eastern that
# weekday (Sunday's, before Friday's 14:00): arXiv's published schedule.
_SUBMISSION_DEADLINE = time(14, 0)


@dataclass
class DayCompleteness:
    """One announcement day: how many papers arXiv listed, how many the
    library holds at (at least) the listed version, and the rest."""

    day: date
    listed: int = 0
    held: int = 0
    missing: list[str] = field(default_factory=list)
    behind: list[tuple[str, int, int]] = field(default_factory=list)  # (arxiv id, listed, held version)

    @property
    def complete(self) -> bool:
        return not self.missing and not self.behind


def announcement_completeness(*, days: int = 14, today: date | None = None) -> list[DayCompleteness]:
    """Per announcement day of the last `days` (newest first), over every
    feed recorded that day; a paper listed twice counts once, at its highest
    listed version. One query."""
    today = today or timezone.now().astimezone(ARXIV_ZONE).date()
    held_version = Paper.objects.filter(arxiv_id=OuterRef("arxiv_id")).values("latest_version")[:1]
    rows = (
        AnnouncementItem.objects.filter(announcement__announced_on__gt=today - timedelta(days=days))
        .annotate(held=Subquery(held_version))
        .values_list("announcement__announced_on", "arxiv_id", "version", "held")
    )
    wanted: dict[date, dict[str, tuple[int, int | None]]] = {}
    for day, arxiv_id, version, held in rows:
        listed = wanted.setdefault(day, {})
        if arxiv_id not in listed or version > listed[arxiv_id][0]:
            listed[arxiv_id] = (version, held)
    report = []
    for day in sorted(wanted, reverse=True):
        entry = DayCompleteness(day, listed=len(wanted[day]))
        for arxiv_id, (version, held) in sorted(wanted[day].items()):
            if held is None:
                entry.missing.append(arxiv_id)
            elif held < version:
                entry.behind.append((arxiv_id, version, held))
            else:
                entry.held += 1
        report.append(entry)
    return report


def latest_announcement(*, feed: str | None = None) -> Announcement | None:
    """The newest recorded announcement (of one feed, if given)."""
    announcements = Announcement.objects.order_by("-announced_on", "-fetched_at")
    if feed is not None:
        announcements = announcements.filter(feed=feed)
    return announcements.first()


def next_expected_announcement(*, after: datetime | None = None) -> datetime:
    """When arXiv's next announcement is due (UTC): the next Sunday to
    Thursday 20:00 US Eastern after `after`, skipping the evenings listed in
    settings.PAPERTRAIL_ARXIV_HOLIDAYS."""
    local = (after or timezone.now()).astimezone(ARXIV_ZONE)
    holidays = settings.PAPERTRAIL_ARXIV_HOLIDAYS
    day = local.date()
    while True:
        moment = datetime.combine(day, _ANNOUNCEMENT_TIME, tzinfo=ARXIV_ZONE)
        if day.weekday() in _ANNOUNCEMENT_WEEKDAYS and day not in holidays and moment > local:
            return moment.astimezone(UTC)
        day += timedelta(days=1)


def latest_expected_announcement(*, at: datetime | None = None) -> datetime:
    """arXiv's latest scheduled announcement at or before `at` (UTC), as
    next_expected_announcement reckons them (Sunday to Thursday 20:00 US
    Eastern, holidays skipped)."""
    local = (at or timezone.now()).astimezone(ARXIV_ZONE)
    holidays = settings.PAPERTRAIL_ARXIV_HOLIDAYS
    day = local.date()
    while True:
        moment = datetime.combine(day, _ANNOUNCEMENT_TIME, tzinfo=ARXIV_ZONE)
        if day.weekday() in _ANNOUNCEMENT_WEEKDAYS and day not in holidays and moment <= local:
            return moment.astimezone(UTC)
        day -= timedelta(days=1)


def listing_day(announcement: datetime) -> date:
    """The date arXiv's listing carries for an announcement made at this
    moment: the feed dates the 20:00 US Eastern announcement at the next
    midnight (harvest/sources/arxiv_rss.py), Sunday's as Monday's."""
    return announcement.astimezone(ARXIV_ZONE).date() + timedelta(days=1)


def announcement_of(day: date) -> datetime:
    """When arXiv announced the listing dated `day` (UTC): the evening before
    at 20:00 US Eastern; the inverse of listing_day."""
    return datetime.combine(day - timedelta(days=1), _ANNOUNCEMENT_TIME, tzinfo=ARXIV_ZONE).astimezone(UTC)


def is_listing_day(day: date) -> bool:
    """Whether arXiv's schedule has an announcement dated `day` (made the
    evening before)."""
    evening = day - timedelta(days=1)
    return evening.weekday() in _ANNOUNCEMENT_WEEKDAYS and evening not in settings.PAPERTRAIL_ARXIV_HOLIDAYS


def announcement_due(*, start: datetime, end: datetime) -> bool:
    """Whether an announcement was due between `start` and `end` (both included)."""
    return next_expected_announcement(after=start - timedelta(microseconds=1)) <= end


def _deadline(evening: date) -> datetime:
    """The submission deadline of the announcement made on `evening` (UTC):
    14:00 US Eastern that day, or on the Friday before for a Sunday."""
    day = evening - timedelta(days=2) if evening.weekday() == 6 else evening
    return datetime.combine(day, _SUBMISSION_DEADLINE, tzinfo=ARXIV_ZONE).astimezone(UTC)


def submission_window(day: date) -> tuple[datetime, datetime]:
    """The submission times (start, end], UTC, that arXiv's listing dated
    `day` announces as new: from the previous announcement's deadline to its own."""
    announced = announcement_of(day)
    previous = latest_expected_announcement(at=announced - timedelta(microseconds=1))
    return _deadline(previous.astimezone(ARXIV_ZONE).date()), _deadline(announced.astimezone(ARXIV_ZONE).date())


def listing_of_submission(submitted: datetime) -> date:
    """The date of arXiv's listing that announces a version submitted at this
    moment (holidays skipped as next_expected_announcement skips them)."""
    announcement = next_expected_announcement(after=submitted)
    while _deadline(announcement.astimezone(ARXIV_ZONE).date()) < submitted:
        announcement = next_expected_announcement(after=announcement)
    return listing_day(announcement)
