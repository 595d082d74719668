"""The trail writers' lock. The definitions' matcher
and every change of what a follow matches (its start, its back-fill) take the
lock, so that a follow begins either before a batch is matched (the batch
matches it) or after (its back-fill covers the batch): no version is matched
twice for it or lost. Readers' marks take no lock: they touch only the
reader's own states."""

from __future__ import annotations

from django.db import connection

_LOCK_KEY = 0x50547472  # "PTtr"


def lock_trail() -> None:
    """Take the trail writers' lock until the transaction ends."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
