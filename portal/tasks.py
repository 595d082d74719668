"""The task that keeps the overview numbers fresh, so that no page computes them.

Celery beat runs it every PORTAL_STATS_REFRESH_SECONDS (settings: "Portal
statistics"); the worker finds it by autodiscovery. Routed to the default
queue: a long harvest run on the harvest queue must not hold it up.
"""

from __future__ import annotations

import time

from celery import shared_task

from portal.stats.overview import refresh_overview_stats


@shared_task(name="portal.refresh_overview_stats", soft_time_limit=50, time_limit=55)
def refresh_overview() -> str:
    started = time.perf_counter()
    stats = refresh_overview_stats()
    return f"overview numbers at {stats.computed_at:%Y-%m-%d %H:%M:%S} UTC in {time.perf_counter() - started:.2f} s"
