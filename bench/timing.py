"""Timing one bench scenario: in process through Django's test client, over
HTTP against a running server, and the stats task's own time."""

from __future__ import annotations

import time

import requests
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench.common import percentile
from bench.scenarios import Scenario
from portal.stats.overview import CACHE_KEY, refresh_overview_stats


def timed_runs(scenario: Scenario, runs: int, get) -> tuple[float, list[float], set[int]]:
    """One untimed-as-warm request, then `runs` timed ones, rotating over the
    scenario's URLs: (first ms, timings in ms, status codes). The stats cache is
    emptied or refreshed before each request where the scenario says so."""
    first, timings, statuses = 0.0, [], set()
    for run in range(runs + 1):
        url = scenario.urls[run % len(scenario.urls)]
        if scenario.clear_cache:
            cache.delete(CACHE_KEY)
        if scenario.refresh:
            refresh_overview_stats()
        started = time.perf_counter()
        response = get(url)
        elapsed = (time.perf_counter() - started) * 1000
        statuses.add(response.status_code)
        if run == 0:
            first = elapsed
        else:
            timings.append(elapsed)
    return first, timings, statuses


def time_in_process(scenario: Scenario, runs: int) -> dict:
    client = Client()
    first, timings, statuses = timed_runs(scenario, runs, client.get)
    if scenario.clear_cache:
        cache.delete(CACHE_KEY)
    with CaptureQueriesContext(connection) as queries:
        client.get(scenario.urls[0])
    return {
        "first_ms": first,
        "p50_ms": percentile(timings, 0.5),
        "p95_ms": percentile(timings, 0.95),
        "max_ms": max(timings),
        "runs": runs,
        "statuses": sorted(statuses),
        "queries": len(queries),
    }


def time_stats_task(runs: int) -> dict:
    """The stats task's work (portal.stats.overview.refresh_overview_stats):
    worker time once a minute, no request waits for it."""
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        refresh_overview_stats()
        timings.append((time.perf_counter() - started) * 1000)
    return {"p50_ms": percentile(timings, 0.5), "p95_ms": percentile(timings, 0.95), "runs": runs}


def time_http(base: str, scenario: Scenario, runs: int) -> dict:
    session = requests.Session()
    _, timings, statuses = timed_runs(scenario, runs, lambda url: session.get(base + url, timeout=60))
    return {"p50_ms": percentile(timings, 0.5), "p95_ms": percentile(timings, 0.95), "statuses": sorted(statuses)}
