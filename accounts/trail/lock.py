"""The trail writers' lock and what a write reports. The definitions' matcher
and every change of what a follow matches (its start, its back-fill) take the
lock, so that a follow begins either before a batch is matched (the batch
matches it) or after (its back-fill covers the batch): no version is matched
twice for it or lost. Readers' marks take no lock: they touch only the
reader's own states."""

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


def lock_trail() -> None:
    """Take the trail writers' lock until the transaction ends."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
