"""Readers with daily, weekly and trail-only follows and a trail made by the
real harvest and matcher, for the delivery tests."""

from __future__ import annotations

from datetime import UTC, date, datetime

from accounts.follows.models import Follow
from accounts.follows.services import follow_create
from accounts.models import User
from harvest.models import Announcement, Version
from harvest.source_records import VersionRecord
from tests.accounts.conftest import ago, harvest, record
from tests.factories import reading

# A Tuesday listing (announced Monday 30 November 2026, 20:00 US Eastern).
DAY = date(2026, 12, 1)
MARCH_2016 = datetime(2016, 3, 9, 12, tzinfo=UTC)


def reader(name: str, *, language: str = "en", time_zone: str = "Asia/Shanghai") -> User:
    return User.objects.create_user(
        name, email=f"{name}@example.org", password="x", language=language, time_zone=time_zone
    )


def follows(user: User) -> tuple[Follow, Follow, Follow]:
    """A daily category follow (cs.LG), a weekly one (cs.CL) and a trail-only one (cs.RO)."""
    daily = follow_create(
        user=user, kind="category", value={"code": "cs.LG"}, name="Learning", delivery=Follow.Delivery.DAILY
    )
    weekly = follow_create(
        user=user, kind="category", value={"code": "cs.CL"}, name="Language", delivery=Follow.Delivery.WEEKLY
    )
    trail_only = follow_create(user=user, kind="category", value={"code": "cs.RO"}, name="Robots")
    return daily, weekly, trail_only


def day_of_papers() -> None:
    """One new cs.LG paper with a reading, a cs.LG revision (v2), a cs.CL and a cs.RO paper."""
    harvest(record("2611.00002", title="Old learning paper", categories=["cs.LG"]), at=ago(days=40))
    harvest(
        record("2611.00001", title="Sparse attention for long documents", categories=["cs.LG", "cs.CL"]),
        record(
            "2611.00002", title="Old learning paper", categories=["cs.LG"], versions=2, comments="v2: new experiments"
        ),
        record("2611.00003", title="Parsing with grammars", categories=["cs.CL"]),
        record("2611.00004", title="Walking robots", categories=["cs.RO"]),
        at=ago(hours=3),
    )
    version = Version.objects.get(paper__arxiv_id="2611.00001", number=1)
    reading(
        version, written_at=ago(hours=1), takeaway="Sparse attention halves the cost.", zh_takeaway="稀疏注意力省一半"
    )


def backfilled_and_gapped() -> None:
    """A March 2016 cs.LG paper a back-fill stores today (archival, never new)
    and a cs.LG paper that arrived at v2 without its v1 (a revision whose
    earlier version is not stored)."""
    harvest(
        record("1603.00001", title="Archival learning paper", categories=["cs.LG"], first_submitted=MARCH_2016),
        at=ago(hours=3),
    )
    gapped = record("2611.00005", title="Arrived at its second version", categories=["cs.LG"])
    gapped.versions = [VersionRecord(number=2, submitted=ago(days=1), size="1kb", source_type="D")]
    harvest(gapped, at=ago(hours=3))


def announce(day: date = DAY) -> Announcement:
    return Announcement.objects.create(feed="cs", announced_on=day)
