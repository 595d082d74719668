"""The trail writers' lock and what a write reports. Every writer of cards
(a harvest's matches, a follow's back-fill, saved papers' revisions, a
reader's delivery) takes the lock, so that two writers never decide about
the same card at once. Readers' marks take no lock: they touch only the read
and dismissed flags."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

_LOCK_KEY = 0x50547472  # "PTtr"


@dataclass
class TrailWriteResult:
    hits: int = 0
    created: int = 0
    updated: int = 0
    reopened: int = 0
    skipped: int = 0

    def add(self, other: TrailWriteResult) -> None:
        self.hits += other.hits
        self.created += other.created
        self.updated += other.updated
        self.reopened += other.reopened
        self.skipped += other.skipped


def lock_trail(*, shared: bool = False, wait: bool = True) -> bool:
    """Take the trail writers' lock (until the transaction ends); `shared` for
    a writer of one user's cards that holds that user's own lock
    (accounts.trail.delivery), so that users are written side by side. Not
    `wait`ing: False when another transaction holds it."""
    if connection.vendor != "postgresql":
        return True
    mode = "_shared" if shared else ""
    with connection.cursor() as cursor:
        if wait:
            cursor.execute(f"SELECT pg_advisory_xact_lock{mode}(%s)", [_LOCK_KEY])
            return True
        cursor.execute(f"SELECT pg_try_advisory_xact_lock{mode}(%s)", [_LOCK_KEY])
        return bool(cursor.fetchone()[0])
