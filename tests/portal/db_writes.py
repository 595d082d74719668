"""Rows written, counted by PostgreSQL's statistics: how the tests show that a
request wrote nothing."""

from __future__ import annotations

from django.db import connection


def rows_written() -> int:
    """Rows this transaction inserted, updated or deleted so far (the test and
    its client share one connection and one transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_user_tables")
        return int(cursor.fetchone()[0])
