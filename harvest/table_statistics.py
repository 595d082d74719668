"""Planner statistics for the library's tables after a bulk load.

PostgreSQL plans from statistics that ANALYZE gathers; until autovacuum gets to
a freshly filled table (or never, where it is off) the planner guesses, and the
library's pages and full-text searches take many times longer. So every bulk
load gathers them itself once it is done, and so does an index pass that
indexed many papers (the search vector's statistics steer full-text plans).
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import connection

from harvest.models import Author, Authorship, CommunityPick, Paper, PaperCategory, Version

logger = logging.getLogger(__name__)

LIBRARY_MODELS = (Paper, Version, Author, Authorship, PaperCategory, CommunityPick)


def analyze_library() -> list[str]:
    """ANALYZE every library table; returns their names."""
    tables = [model._meta.db_table for model in LIBRARY_MODELS]
    started = time.monotonic()
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
    logger.info("planner statistics of %d library tables gathered in %.1f s", len(tables), time.monotonic() - started)
    return tables


def analyze_library_if_grown(*, stored: int) -> bool:
    """ANALYZE when one load stored at least PAPERTRAIL_ANALYZE_AFTER rows."""
    if stored < settings.PAPERTRAIL_ANALYZE_AFTER:
        return False
    analyze_library()
    return True
