"""What a version's badge says, decided here for every page (the library's
cards, the trail, the picks page, a paper's page), so one version is never
called new on one page and revised on another:

- a version the library stored long after arXiv dated it came by a back-fill
  (the offline bundle, a snapshot, an author's back-catalogue): it is
  archival, labelled with its date, never new;
- otherwise v1 is a new paper, and a later version a revision;
- a revision promises its diff only when the previous version's text is
  stored; else it says which of the two is missing.

A version's date is arXiv's: its submission, or the day the announcement feed
listed it when only the feed has brought it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import F, OuterRef, Q, Subquery

from harvest.models import Version

# arXiv announces a submission within three working days and the feed or the
# nightly OAI-PMH run stores it the same day; a week covers holidays too, so
# a version stored later than this after its date was fetched from the past.
ARCHIVAL_AFTER = timedelta(days=7)


class BadgeKind:
    NEW = "new"
    REVISION = "revision"
    ARCHIVAL = "archival"


class DiffState:
    NONE = ""  # v1: nothing to compare
    SHOWN = "shown"  # the previous version's text is stored: the paper page shows the change
    NO_TEXT = "no_text"  # the previous version is stored with its date only
    NOT_STORED = "not_stored"  # no earlier version is stored


@dataclass(frozen=True, slots=True)
class VersionBadge:
    kind: str  # BadgeKind
    number: int
    dated: date | None  # arXiv's date of the version
    diff: str  # DiffState

    @property
    def has_diff(self) -> bool:
        return self.diff == DiffState.SHOWN


def version_dated(version: Version) -> datetime | None:
    """arXiv's date of a version (UTC): its submission, else its announcement
    day (the feed's listing date, taken at midnight UTC), else None."""
    if version.submitted is not None:
        return version.submitted
    if version.announced is not None:
        return datetime.combine(version.announced, time(0), tzinfo=UTC)
    return None


def dated_since(since: datetime) -> Q:
    """Versions arXiv dated at or after `since` (as version_dated dates them)."""
    return Q(submitted__gte=since) | Q(submitted__isnull=True, announced__gte=since.astimezone(UTC).date())


def is_archival(*, dated: datetime | None, stored_at: datetime) -> bool:
    """Whether a version dated `dated` and stored at `stored_at` came by a back-fill."""
    return dated is not None and stored_at - dated > ARCHIVAL_AFTER


def texts_compared(older: Version, newer: Version) -> bool:
    """Whether both versions' texts are stored, so that their change can be shown."""
    return bool(older.title and newer.title)


def version_badge(version: Version, *, previous: Version | None) -> VersionBadge:
    """The badge of `version`, given the stored version before it (None when not stored)."""
    dated = version_dated(version)
    if version.number == 1:
        diff = DiffState.NONE
    elif previous is None:
        diff = DiffState.NOT_STORED
    else:
        diff = DiffState.SHOWN if texts_compared(previous, version) else DiffState.NO_TEXT
    if is_archival(dated=dated, stored_at=version.discovered_at):
        kind = BadgeKind.ARCHIVAL
    else:
        kind = BadgeKind.NEW if version.number == 1 else BadgeKind.REVISION
    return VersionBadge(kind=kind, number=version.number, dated=dated.date() if dated else None, diff=diff)


def _with_previous(versions):
    previous = Version.objects.filter(paper_id=OuterRef("paper_id"), number=OuterRef("number") - 1)
    return versions.annotate(previous_title=Subquery(previous.values("title")[:1]))


def _badge(version: Version) -> VersionBadge:
    # The previous version's title stands for it (None: not stored; "": stored without text).
    title = version.previous_title
    previous = None if title is None else Version(number=version.number - 1, title=title)
    return version_badge(version, previous=previous)


def latest_versions(paper_ids: Iterable[int]) -> dict[int, tuple[Version, VersionBadge]]:
    """Each paper's latest stored version with its badge, by paper id (one query)."""
    versions = Version.objects.filter(paper_id__in=list(paper_ids), number=F("paper__latest_version")).only(
        "id", "paper_id", "number", "submitted", "announced", "discovered_at", "title"
    )
    return {version.paper_id: (version, _badge(version)) for version in _with_previous(versions)}


def version_badges(version_ids: Iterable[int]) -> dict[int, VersionBadge]:
    """The badges of these versions, by version id (one query)."""
    versions = Version.objects.filter(pk__in=list(version_ids)).only(
        "id", "paper_id", "number", "submitted", "announced", "discovered_at", "title"
    )
    return {version.pk: _badge(version) for version in _with_previous(versions)}
