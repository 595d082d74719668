"""Reads of the private Atom feeds: the user a feed secret names, the
newest entries of the trail or of one follow, and a validator (ETag and
Last-Modified) computed from the same rows, so a conditional GET that
finds nothing new costs a few indexed queries and no rendering. The entries
are in the reader's trail order ("for you": each day by their score)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from accounts.alerts.models import AlertSettings
from accounts.follows.models import Follow
from accounts.models import User
from accounts.recommend.selectors import paper_scores, window_start
from accounts.recommend.types import UNSCORED
from accounts.trail.models import TrailProfile
from accounts.trail.selectors import trail_cards_page, trail_order_of
from accounts.trail.types import CardFilter
from digests.selectors import readings_for_versions
from harvest.badges import VersionBadge, version_badges
from harvest.models import Paper


@dataclass
class FeedEntry:
    paper: Paper
    version_number: int
    kind: str
    event_at: datetime
    takeaway: str = ""
    abstract: str = ""  # cut at ABSTRACT_LIMIT characters, on a word
    badge: VersionBadge | None = None  # as every page labels this version (harvest.badges)


@dataclass
class FeedState:
    user: User
    follow: Follow | None
    entries: list[FeedEntry] = field(default_factory=list)
    etag: str = ""
    last_modified: datetime | None = None
    rows: list[tuple] = field(default_factory=list)  # (paper id, version id, number, kind, event time)


ABSTRACT_LIMIT = 800


def _shortened(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= ABSTRACT_LIMIT:
        return text
    return text[:ABSTRACT_LIMIT].rsplit(" ", 1)[0] + " …"


def feed_user(*, secret: str) -> User | None:
    row = AlertSettings.objects.filter(feed_secret=secret).select_related("user__trail_profile").first()
    if row is None or not row.user.is_active:
        return None
    return row.user


def _rows(user: User, follow: Follow | None, size: int) -> list[tuple]:
    """(paper id, version id, version number, kind, event time), newest first."""
    where = CardFilter(follow_id=follow.pk if follow is not None else None)
    cards = trail_cards_page(user_id=user.pk, where=where, size=size)
    return [(card.paper_id, card.version_id, card.version_number, card.kind, card.event_at) for card in cards]


def _in_reader_order(user: User, rows: list[tuple]) -> list[tuple]:
    """The trail's order "for you" when the reader chose it: each day (in their
    zone, newest first) by their score; newest first otherwise."""
    if trail_order_of(user=user) != TrailProfile.Order.FOR_YOU or not rows:
        return rows
    scores = paper_scores(user.pk, [row[0] for row in rows], since=window_start())
    if not scores:
        return rows
    zone = ZoneInfo(user.time_zone)
    return sorted(
        rows,
        key=lambda row: (row[4].astimezone(zone).date(), scores.get(row[0], UNSCORED), row[4]),
        reverse=True,
    )


def feed_state(*, secret: str, follow_id: int | None, size: int) -> FeedState | None:
    """The feed a URL names, or None (an unknown or rotated secret, a follow
    that is not this user's): the caller answers 404 either way."""
    user = feed_user(secret=secret)
    if user is None:
        return None
    follow = None
    if follow_id is not None:
        follow = Follow.objects.filter(user=user, pk=follow_id).first()
        if follow is None:
            return None
    rows = _in_reader_order(user, _rows(user, follow, size))
    digest = hashlib.sha256(f"{user.language}|{follow.name if follow else ''}".encode())
    for paper_id, _version_id, number, kind, event_at in rows:
        digest.update(f"|{paper_id}.{number}.{kind}.{event_at.isoformat()}".encode())
    newest = max((row[4] for row in rows), default=None)
    return FeedState(user, follow, etag=f'"{digest.hexdigest()[:32]}"', last_modified=newest, rows=rows)


def feed_entries(state: FeedState) -> list[FeedEntry]:
    """The entries of a state from feed_state, with papers and takeaways."""
    rows = state.rows
    papers = Paper.objects.in_bulk([row[0] for row in rows])
    readings = readings_for_versions(version_ids=[row[1] for row in rows])
    badges = version_badges(row[1] for row in rows)
    language = "zh" if state.user.language.startswith("zh") else "en"
    entries = []
    for paper_id, version_id, number, kind, event_at in rows:
        paper = papers.get(paper_id)
        if paper is None:
            continue
        reading = readings.get(version_id)
        takeaway = (reading.content.get(language) or {}).get("takeaway", "") if reading is not None else ""
        entry = FeedEntry(paper, number, kind, event_at, takeaway, _shortened(paper.abstract), badges.get(version_id))
        entries.append(entry)
    return entries
