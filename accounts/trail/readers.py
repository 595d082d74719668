"""Who is reading: a reader's follows (each with its definition's key, start
and switches), exclusions and "read up to here" mark, read once a request,
and the versions that tell stored counts a reader's trail changed."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet

from accounts.follows.selectors import ReaderFollow, readers_exclusion_keys, readers_follows
from accounts.trail.models import GroupTrailReadMark, GroupTrailState, TrailProfile, TrailReadMark, TrailState


@dataclass
class Reader:
    """What composing one reader's trail needs, read once (three small queries).
    With `group_id`, the reader is a member reading a lab group's trail: the
    group's follows, no exclusions, and the member's own marks on it."""

    user_id: int
    follows: dict[int, list[ReaderFollow]]  # by definition key
    exclusions: frozenset[int]
    mark: TrailReadMark | GroupTrailReadMark | None
    group_id: int | None = None

    @classmethod
    def of(cls, user_id: int, group_id: int | None = None) -> Reader:
        shared = _shared_readers.get()
        if shared is not None and (user_id, group_id) in shared:
            return shared[(user_id, group_id)]
        reader = cls._read(user_id, group_id)
        if shared is not None:
            shared[(user_id, group_id)] = reader
        return reader

    @classmethod
    def _read(cls, user_id: int, group_id: int | None) -> Reader:
        return readers_of([(user_id, group_id)])[(user_id, group_id)]

    def states(self) -> QuerySet[TrailState] | QuerySet[GroupTrailState]:
        """The reader's card states: their own trail's, or theirs on the group's."""
        if self.group_id is not None:
            return GroupTrailState.objects.filter(group_id=self.group_id, user_id=self.user_id)
        return TrailState.objects.filter(user_id=self.user_id)

    def own_matches_sql(self, table: str) -> tuple[str, list]:
        """Which rows of accounts_readermatch (aliased `table`) are this reader's
        own: theirs, or (a group's trail) the back-fills of the group's follows."""
        if self.group_id is None:
            return f"{table}.user_id = %s", [self.user_id]
        ids = sorted(self.follow_ids)
        if not ids:
            return "1 = 0", []
        return f"{table}.user_id IS NULL AND {table}.follow_id IN ({', '.join(['%s'] * len(ids))})", ids

    @property
    def follow_ids(self) -> set[int]:
        return {follow.id for follows in self.follows.values() for follow in follows}

    def keys_of(self, follow_id: int | None) -> list[int]:
        if follow_id is None:
            return list(self.follows)
        return [key for key, follows in self.follows.items() if any(f.id == follow_id for f in follows)]

    def follow(self, follow_id: int) -> ReaderFollow | None:
        for follows in self.follows.values():
            for follow in follows:
                if follow.id == follow_id:
                    return follow
        return None


def readers_of(pairs: list[tuple[int, int | None]]) -> dict[tuple[int, int | None], Reader]:
    """The readers of these (user, group or None) pairs, read together: five
    queries for any number of them (a run of chat channels reads hundreds)."""
    users = sorted({user_id for user_id, group_id in pairs if group_id is None})
    groups = sorted({group_id for _, group_id in pairs if group_id is not None})
    follows = readers_follows(user_ids=users, group_ids=groups)
    exclusions = readers_exclusion_keys(user_ids=users) if users else {}
    marks = {mark.user_id: mark for mark in TrailReadMark.objects.filter(user_id__in=users)} if users else {}
    group_marks = {}
    if groups:
        members = {user_id for user_id, group_id in pairs if group_id is not None}
        for mark in GroupTrailReadMark.objects.filter(group_id__in=groups, user_id__in=members):
            group_marks[(mark.user_id, mark.group_id)] = mark
    found = {}
    for user_id, group_id in pairs:
        by_key: dict[int, list[ReaderFollow]] = defaultdict(list)
        owner = ("group", group_id) if group_id is not None else ("user", user_id)
        for follow in follows.get(owner, []):
            by_key[follow.key].append(follow)
        if group_id is not None:
            found[(user_id, group_id)] = Reader(
                user_id, dict(by_key), frozenset(), group_marks.get((user_id, group_id)), group_id
            )
        else:
            found[(user_id, group_id)] = Reader(
                user_id, dict(by_key), exclusions.get(user_id, frozenset()), marks.get(user_id)
            )
    return found


# Within a request, one Reader per user: a page and its navigation's count read
# the follows, exclusions and mark once. Any change to them forgets them all.
_shared_readers: ContextVar[dict[tuple[int, int | None], Reader] | None] = ContextVar("trail_readers", default=None)


@contextmanager
def readers_shared() -> Iterator[None]:
    token = _shared_readers.set({})
    try:
        yield
    finally:
        _shared_readers.reset(token)


def forget_shared_readers() -> None:
    """Within this request, read every reader again."""
    shared = _shared_readers.get()
    if shared is not None:
        shared.clear()


def forget_readers(user_id: int | None) -> None:
    """A reader's follows, exclusions, marks or own matches changed: read
    them again, and let their stored unread counts go (None: a group's follow
    changed, and its trail keeps no stored counts)."""
    forget_shared_readers()
    if user_id is None:
        return
    if TrailProfile.objects.filter(user_id=user_id).update(version=F("version") + 1):
        return
    # An account made before its profile could be (a fixture, a bulk load): made now.
    try:
        with transaction.atomic():
            TrailProfile.objects.create(user_id=user_id, version=1)
    except IntegrityError:
        TrailProfile.objects.filter(user_id=user_id).update(version=F("version") + 1)


_PRUNED_KEY = "trail:pruned"


def trail_pruned() -> None:
    """The retention dropped matches: every stored count is stale."""
    cache.set(_PRUNED_KEY, uuid.uuid4().hex, timeout=None)


def trail_pruned_version() -> str | None:
    return cache.get(_PRUNED_KEY)
