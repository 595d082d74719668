"""The SQL floor of a page: the statements one request runs, timed bare.

For a scenario, one request is made under Django's CaptureQueriesContext;
the statements it ran (as sent: Django binds parameters on the client, so
the captured text carries the request's own values) are then run again,
without Django, on the same database connection, and every row fetched, as
the ORM would. The floor is the p50 of that replay over `runs` runs; a
page's server time divided by it says what the Python side (middleware,
view, ORM, templates or serializers) adds on top of the database's work.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from bench.common import percentile

# Statements the replay runs: reads only. A request that writes (a session
# touched, a last-seen stamp) would change the database if replayed.
_READS = ("select", "with", "(select", "values")
TARGET_RATIO = 2.0


@dataclass
class CapturedRequest:
    statements: list[str] = field(default_factory=list)  # the reads, in order
    skipped: list[str] = field(default_factory=list)  # writes and transaction control, not replayed
    status: int = 0


def is_read(sql: str) -> bool:
    return sql.lstrip().lower().startswith(_READS)


def capture(get: Callable[[str], object], url: str) -> CapturedRequest:
    """The statements one request to `url` runs (through `get`, a test client's)."""
    with CaptureQueriesContext(connection) as queries:
        response = get(url)
    captured = CapturedRequest(status=response.status_code)
    for query in queries.captured_queries:
        (captured.statements if is_read(query["sql"]) else captured.skipped).append(query["sql"])
    return captured


def replay(statements: list[str]) -> tuple[float, int]:
    """Runs the statements once on Django's connection, bare (psycopg's own
    cursor, no Django wrapper): (milliseconds, rows fetched)."""
    connection.ensure_connection()
    rows = 0
    started = time.perf_counter()
    with connection.connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
            if cursor.description is not None:
                rows += len(cursor.fetchall())
    return (time.perf_counter() - started) * 1000, rows


def floor(statements: list[str], runs: int) -> dict:
    """p50 and minimum of the replay over `runs` runs, after one warm-up."""
    _, rows = replay(statements)
    timings = [replay(statements)[0] for _ in range(runs)]
    return {"p50_ms": percentile(timings, 0.5), "min_ms": min(timings), "rows": rows, "runs": runs}


def measure(plan: list, results: list[dict], runs: int) -> list[dict]:
    """For every page and API scenario that does not reset the stats cache:
    its floor and the ratio of its in-process p50 to it (stored in `results`
    too, under "floor", for the printed table)."""
    client = Client()
    rows = []
    for scenario, result in zip(plan, results, strict=True):
        if scenario.clear_cache or scenario.refresh or not scenario.urls:
            continue
        captured = capture(client.get, scenario.urls[0])
        figures = floor(captured.statements, runs) if captured.statements else None
        page_p50 = result["in_process"]["p50_ms"]
        ratio = page_p50 / figures["p50_ms"] if figures and figures["p50_ms"] > 0 else None
        row = {
            "name": scenario.name,
            "url": scenario.urls[0],
            "statements": len(captured.statements),
            "not_replayed": len(captured.skipped),
            "floor": figures,
            "page_p50_ms": page_p50,
            "ratio": ratio,
            # No SQL at all (numbers from the cache): no floor to compare with.
            "meets_target": None if ratio is None else ratio <= TARGET_RATIO,
        }
        result["floor"] = row
        rows.append(row)
    return rows


def lines(rows: list[dict]) -> list[str]:
    out = [
        "",
        "SQL floor: each request's statements replayed bare (p50 over runs); "
        f"page p50 / floor, target ≤ {TARGET_RATIO}x",
        f"{'scenario':58} {'stmts':>5} {'floor':>7} {'page':>7} {'ratio':>6}  ok",
    ]
    for row in rows:
        floor_ms = row["floor"]["p50_ms"] if row["floor"] else float("nan")
        ratio = row["ratio"] if row["ratio"] is not None else float("nan")
        verdict = {True: "yes", False: "NO", None: "no SQL"}[row["meets_target"]]
        out.append(
            f"{row['name'][:58]:58} {row['statements']:>5} {floor_ms:>7.2f} {row['page_p50_ms']:>7.1f} {ratio:>5.1f}x"
            f"  {verdict}"
        )
    return out
