"""Where the bulk upsert's rows are written (harvest/services.py decides what
they are): on PostgreSQL a set-based store (new rows COPied straight into their
tables under a transaction-level write lock, updates through staging tables
and one UPDATE ... FROM per table: a handful of round trips per batch, no
model instances); elsewhere the portable ORM store. Both
write the same rows; tests/bench/ checks that they store identical libraries.
"""

from __future__ import annotations

from django.db import connection

from harvest.stores.orm import OrmStore
from harvest.stores.postgres import PostgresStore
from harvest.stores.rows import PaperRow, VersionRow, author_names

__all__ = ["OrmStore", "PaperRow", "PostgresStore", "VersionRow", "author_names", "store_class", "store_for_connection"]


def store_class() -> type[PostgresStore] | type[OrmStore]:
    """The set-based store on PostgreSQL, the portable ORM store elsewhere."""
    return PostgresStore if connection.vendor == "postgresql" else OrmStore


def store_for_connection() -> PostgresStore | OrmStore:
    return store_class()()
