"""What `make bench` measures beside the pages (bench/portal.py calls these
two functions): each scenario's SQL floor (bench/floors.py), the admin
(bench/admin_timings.py) and full-text search against a TF-IDF scan
(bench/search_baseline.py)."""

from __future__ import annotations

import sys

from bench import admin_timings, floors, search_baseline


def measure(plan: list, results: list[dict], runs: int) -> dict:
    print("SQL floors", file=sys.stderr, flush=True)
    report = {"floors": floors.measure(plan, results, runs)}
    print("admin", file=sys.stderr, flush=True)
    report["admin"] = admin_timings.measure(runs)
    print("search baseline", file=sys.stderr, flush=True)
    report["search_baseline"] = search_baseline.measure()
    return report


def lines(report: dict) -> list[str]:
    extra = report.get("side_by_side")
    if not extra:
        return []
    return [
        *floors.lines(extra["floors"]),
        *admin_timings.lines(extra["admin"]),
        *search_baseline.lines(extra["search_baseline"]),
    ]
