"""Commits that do not wait for the WAL flush, for a run's many small status
updates (the alerts' and the chat channels' marks)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection


@contextmanager
def relaxed_commits() -> Iterator[None]:
    """A killed worker loses nothing by it (its commits are the server's); only
    a crash of PostgreSQL itself could lose the last fraction of a second of
    marks, which at worst sends those few messages again (a mail under the same
    Message-ID)."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET synchronous_commit")
