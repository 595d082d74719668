"""`make bench-data SCALE=1000000`: a synthetic arXiv-shaped library in PostgreSQL.

    python -m bench data --scale 1000000 [--seed 1] [--now 2026-11-13T08:00] [--workers 2] [--daily 1100]

Writes DATABASE_URL (PostgreSQL; default postgres://postgres@127.0.0.1:5432/
papertrail_bench), which it drops and creates, then migrates through the
project's own migrations, so the schema (stored search vector included) is the
one the portal runs on. The shape is documented in bench/library.py, the ids
in bench/rows.py. How it loads fast:

- the secondary indexes, unique and foreign-key constraints of the big tables
  are dropped after migrating and rebuilt after the load (index builds run two
  at a time with 1 GB of maintenance memory each; the GIN index of the search
  vector first, as the longest), the foreign keys validated once at the end;
- rows go in through COPY (psycopg's `cursor.copy`), one transaction per chunk
  of 20,000 papers, from `--workers` processes drawing chunks in parallel
  (papers through a staging table, so that PostgreSQL computes each paper's
  full-text vector in the worker's backend, as harvest.search_index would);
- then VACUUM ANALYZE of every table (statistics and the visibility map the
  index-only scans need), and the sequences set past the largest ids.

Reproducible: the same --seed, --scale, --now and --daily give the same rows
whatever --workers. `--now` defaults to the current hour, so the last 24 hours
hold about `--daily` new papers whenever the library is made.
The parameters, the shape and the full-text query tiers are stored in the
table `bench_library` for bench/portal.py.
"""

from __future__ import annotations

import argparse
import bisect
import json
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.db import connections

from bench import common, library
from bench.rows import (
    AUTHORSHIP_COLUMNS,
    CATEGORY_COLUMNS,
    PAPER_COLUMNS,
    PICK_COLUMNS,
    READING_COLUMNS,
    VERSION_COLUMNS,
    ChunkWriter,
    World,
)
from harvest.search_index import SEARCH_VECTOR_SQL

CHUNK = 20_000
BIG_TABLES = (
    "harvest_paper",
    "harvest_version",
    "harvest_author",
    "harvest_authorship",
    "harvest_papercategory",
    "harvest_communitypick",
    "digests_guidedreading",
)
COPIES = (
    ("harvest_paper", PAPER_COLUMNS, "papers"),
    ("harvest_version", VERSION_COLUMNS, "versions"),
    ("harvest_authorship", AUTHORSHIP_COLUMNS, "authorships"),
    ("harvest_papercategory", CATEGORY_COLUMNS, "categories"),
    ("harvest_communitypick", PICK_COLUMNS, "picks"),
    ("digests_guidedreading", READING_COLUMNS, "readings"),
)
_WORLD: World | None = None
_CONNECTION: psycopg.Connection | None = None


def log(message: str, *args) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] " + (message % args if args else message), file=sys.stderr, flush=True)


def create_database(url: str) -> None:
    name = common.database_name(url)
    with psycopg.connect(common.psycopg_url(common.maintenance_url(url)), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')


def migrate() -> None:
    call_command("migrate", verbosity=0, interactive=False)


def schema_to_rebuild(conn: psycopg.Connection) -> tuple[list[str], list[str], list[str]]:
    """(drop statements, build statements, statements after the builds) for the
    secondary indexes and the unique and foreign-key constraints of BIG_TABLES.

    A unique constraint is rebuilt as a unique index (CREATE INDEX takes a lock
    that lets other index builds on the table run beside it, ALTER TABLE does
    not) and then attached to its constraint, which is instant."""
    tables = list(BIG_TABLES)
    constraints = conn.execute(
        "SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid), "
        "pg_get_indexdef(conindid) FROM pg_constraint "
        "WHERE conrelid = ANY(%s::regclass[]) AND contype IN ('u', 'f') ORDER BY contype, conname",
        [tables],
    ).fetchall()
    indexes = conn.execute(
        "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "WHERE i.indrelid = ANY(%s::regclass[]) AND NOT i.indisprimary "
        "AND i.indexrelid NOT IN (SELECT conindid FROM pg_constraint WHERE contype IN ('u', 'p', 'x'))",
        [tables],
    ).fetchall()
    drops, builds, after = [], [], []
    for table, name, kind, definition, index_definition in constraints:
        drops.append(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        if kind == "u":
            builds.append(index_definition)
            after.insert(0, f'ALTER TABLE {table} ADD CONSTRAINT "{name}" UNIQUE USING INDEX "{name}"')
        else:
            after.append(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
    for name, definition in indexes:
        drops.append(f"DROP INDEX {name}")
        builds.append(definition)
    # Longest first: the search vector's GIN index, then the paper table's, then the rest.
    builds.sort(key=lambda s: (" gin " not in s.lower(), "harvest_paper " not in s, s))
    return drops, builds, after


def _index_staged_papers() -> str:
    """Papers from the staging table into the library with their full-text vectors."""
    columns = ", ".join(PAPER_COLUMNS)
    # Column names are constants of bench/rows.py and harvest/search_index.py.
    return (
        f"INSERT INTO harvest_paper ({columns}, search_vector, search_pending) "  # noqa: S608
        f"SELECT {columns}, {SEARCH_VECTOR_SQL}, false FROM bench_stage_paper"
    )


def _worker_connection(url: str) -> psycopg.Connection:
    global _CONNECTION
    if _CONNECTION is None:
        _CONNECTION = psycopg.connect(common.psycopg_url(url))
        _CONNECTION.execute("SET synchronous_commit TO OFF")
        _CONNECTION.execute(
            "CREATE TEMPORARY TABLE bench_stage_paper (LIKE harvest_paper INCLUDING DEFAULTS) ON COMMIT DELETE ROWS"
        )
        _CONNECTION.commit()
    return _CONNECTION


def load_chunk(task: tuple[str, int]) -> tuple[Counter, dict[str, int], float]:
    url, number = task
    started = time.perf_counter()
    world = _WORLD
    start, stop = number * CHUNK, min(world.papers, (number + 1) * CHUNK)
    chunk = ChunkWriter(world, number, start, stop).rows()
    drawn = time.perf_counter() - started
    conn = _worker_connection(url)
    counts = {}
    with conn.transaction(), conn.cursor() as cursor:
        for table, columns, attribute in COPIES:
            rows = getattr(chunk, attribute)
            counts[attribute] = len(rows)
            # Papers go through a staging table so that they arrive indexed
            # for full-text search, as harvest.search_index leaves them.
            target = "bench_stage_paper" if table == "harvest_paper" else table
            with cursor.copy(f"COPY {target} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        cursor.execute(_index_staged_papers())
    return chunk.shape, counts, drawn


def harvest_history(world: World, source_ids: dict[str, int]) -> list[tuple]:
    """HarvestRun rows since the bootstrap: arXiv every two hours (new papers
    after each announcement, otherwise empty), Hugging Face hourly; a few
    failures, never the latest run of a source."""
    rng = random.Random(f"{world.seed}:runs")
    timeline, rows = world.timeline, []
    start = timeline.bootstrap.replace(minute=0, second=0, microsecond=0)

    def listed_before(moment: datetime) -> int:
        return bisect.bisect_left(range(world.papers), moment, key=timeline.inclusion_grid)

    for slug, step, minute in (("arxiv", 2, 17), ("hf_daily", 1, 43)):
        moment = start + timedelta(minutes=minute)
        previous = listed_before(moment)
        while moment + timedelta(minutes=3) < world.now:
            finished = moment + timedelta(seconds=rng.uniform(5, 170))
            failed = rng.random() < 0.03 and finished + timedelta(hours=step) < world.now
            if slug == "arxiv":
                upto = listed_before(moment)
                new = upto - previous
                previous = upto
                seen = new + int(new * rng.uniform(0.3, 0.5))
            else:
                new, seen = rng.randint(0, 2), rng.randint(0, 12)
            status = "failed" if failed else ("ok" if seen else "empty")
            error = "HTTPError: 503 Service Unavailable (transient)" if failed else ""
            counts = (0, 0, 0, 0) if failed else (seen, new, max(0, seen - new), 0)
            pages = 0 if failed else max(1, -(-seen // 1000))
            checkpoint = json.dumps({"from": (moment - timedelta(days=1)).date().isoformat()})
            rows.append(
                (
                    source_ids[slug],
                    moment,
                    finished,
                    status,
                    *counts[:2],
                    counts[2],
                    0,
                    counts[3],
                    0,
                    pages,
                    error,
                    checkpoint,
                )
            )
            moment += timedelta(hours=step)
    return rows


def build(args: argparse.Namespace) -> dict:
    global _WORLD
    url = common.database_url()
    timings: dict[str, float] = {}
    mark = time.perf_counter()
    log("creating %s and migrating", common.database_name(url))
    create_database(url)
    migrate()

    connections.close_all()  # the load runs in forked workers on their own connections
    timings["create_and_migrate"] = time.perf_counter() - mark
    now = args.now or datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    conn = psycopg.connect(common.psycopg_url(url), autocommit=True)
    sources = {"arxiv": "arXiv OAI-PMH", "arxiv_api": "arXiv API", "hf_daily": "Hugging Face Daily Papers"}
    source_ids = {}
    for slug, name in sources.items():
        source_ids[slug] = conn.execute(
            "INSERT INTO harvest_source (slug, name, enabled, checkpoint, lease_owner) "
            "VALUES (%s, %s, true, %s, '') RETURNING id",
            [slug, name, json.dumps({"until": now.date().isoformat()})],
        ).fetchone()[0]
    world = World(
        papers=args.scale,
        seed=args.seed,
        now=now,
        daily=args.daily,
        ai_categories=frozenset(settings.PAPERTRAIL_AI_CATEGORIES),
        hf_source_id=source_ids["hf_daily"],
        prompt_version=settings.PAPERTRAIL_SUMMARY_PROMPT_VERSION,
        model=settings.PAPERTRAIL_SUMMARY_MODEL,
    )
    mark = time.perf_counter()
    log("drawing the vocabulary, %d author names and the timeline", world.author_count)
    for prepared in (world.words, world.word_table, world.authors, world.author_weights, world.month_first_index):
        assert prepared
    log("bootstrap import holds %d papers; growth %.5f/day", world.bootstrapped, world.timeline.growth)
    timings["prepare"] = time.perf_counter() - mark

    drops, builds, foreign = schema_to_rebuild(conn)
    for statement in drops:
        conn.execute(statement)
    mark = time.perf_counter()
    with conn.cursor() as cursor, cursor.copy("COPY harvest_author (id, name) FROM STDIN") as copy:
        for number, name in enumerate(world.authors, start=1):
            copy.write_row((number, name))
    with conn.cursor() as cursor:
        runs = harvest_history(world, source_ids)
        cursor.executemany(
            "INSERT INTO harvest_harvestrun (source_id, started_at, finished_at, status, seen, new_papers, "
            "new_versions, updated, unchanged, skipped, pages, error, checkpoint) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            runs,
        )
    chunks = -(-args.scale // CHUNK)
    log("loading %d papers in %d chunks with %d workers", args.scale, chunks, args.workers)
    _WORLD = world
    shape: Counter = Counter()
    counts: Counter = Counter()
    drawing = 0.0
    context = multiprocessing.get_context("fork")
    with context.Pool(args.workers) as pool:
        for done, (chunk_shape, chunk_counts, drawn) in enumerate(
            pool.imap_unordered(load_chunk, [(url, n) for n in range(chunks)]), start=1
        ):
            shape.update(chunk_shape)
            counts.update(chunk_counts)
            drawing += drawn
            if done % 10 == 0 or done == chunks:
                log("%d/%d chunks", done, chunks)
    timings["copy"] = time.perf_counter() - mark
    timings["drawing_rows_cpu"] = drawing
    mark = time.perf_counter()
    unused = conn.execute(
        "DELETE FROM harvest_author a WHERE NOT EXISTS (SELECT 1 FROM harvest_authorship s WHERE s.author_id = a.id)"
    ).rowcount
    log("dropped %d pool names no paper drew; rebuilding %d indexes and constraints", unused, len(builds))

    def run(statement: str) -> None:
        with psycopg.connect(common.psycopg_url(url), autocommit=True) as builder:
            builder.execute("SET maintenance_work_mem TO '1GB'")
            builder.execute(statement)

    with ThreadPoolExecutor(args.workers) as executor:
        list(executor.map(run, builds))
    for statement in foreign:
        conn.execute(statement)
    timings["indexes_and_constraints"] = time.perf_counter() - mark
    mark = time.perf_counter()
    for table in (*BIG_TABLES, "harvest_harvestrun", "harvest_source"):
        # Table names are the constants above.
        conn.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "  # noqa: S608
            f"(SELECT coalesce(max(id), 0) + 1 FROM {table}), false)"
        )
    with ThreadPoolExecutor(args.workers) as executor:
        list(executor.map(lambda table: run(f"VACUUM (ANALYZE) {table}"), BIG_TABLES))
    conn.execute("ANALYZE")
    timings["vacuum_analyze"] = time.perf_counter() - mark
    summary = {
        "parameters": {"scale": args.scale, "seed": args.seed, "now": now.isoformat(), "daily": args.daily},
        "rows": {**counts, "authors": len(world.authors) - unused, "harvest_runs": len(runs)},
        "shape": dict(sorted(shape.items())),
        "query_tiers": library.query_tiers(world.words),
        "timings_seconds": {k: round(v, 1) for k, v in timings.items()},
        "machine": common.machine(),
    }
    conn.execute("CREATE TABLE IF NOT EXISTS bench_library (key text PRIMARY KEY, value jsonb NOT NULL)")
    for key, value in summary.items():
        conn.execute(
            "INSERT INTO bench_library VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            [key, json.dumps(value)],
        )
    conn.close()
    return summary


def describe(summary: dict) -> str:
    rows, shape, scale = summary["rows"], summary["shape"], summary["parameters"]["scale"]
    versions = {k.split(":")[1]: v for k, v in shape.items() if k.startswith("versions:")}
    cross = {k.split(":")[1]: v for k, v in shape.items() if k.startswith("cross_lists:")}
    categories = sorted(
        ((k.split(":", 1)[1], v) for k, v in shape.items() if k.startswith("category:")), key=lambda kv: -kv[1]
    )
    lines = [
        f"library of {scale:,} papers at {summary['parameters']['now']} (seed {summary['parameters']['seed']})",
        "rows: " + ", ".join(f"{name} {count:,}" for name, count in rows.items()),
        "versions per paper: "
        + ", ".join(f"{n}: {c / scale:.1%}" for n, c in sorted(versions.items(), key=lambda kv: int(kv[0]))),
        "cross-lists per paper: " + ", ".join(f"{n}: {c / scale:.1%}" for n, c in sorted(cross.items())),
        f"AI-related {shape['ai_related'] / scale:.1%}, revised {shape['revised'] / scale:.1%}, "
        f"cs.* primary {shape['cs_primary'] / scale:.1%}, a code link {shape['code_links'] / scale:.1%}, "
        f"a venue acceptance {shape['venues'] / scale:.1%}, HF picks {shape['picks']:,}",
        "largest categories (share of papers, CS-primary share): "
        + ", ".join(
            f"{code} {count / scale:.1%} ({shape[f'category_cs_primary:{code}'] / count:.0%})"
            for code, count in categories[:12]
        ),
        "full-text tiers: "
        + ", ".join(f"{tier} {t['q']!r} ~{t['expected_share']:.2%}" for tier, t in summary["query_tiers"].items()),
        "seconds: " + ", ".join(f"{k} {v}" for k, v in summary["timings_seconds"].items()),
    ]
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=100_000, help="papers (default 100,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--now", type=lambda s: datetime.fromisoformat(s).replace(tzinfo=UTC), default=None)
    parser.add_argument("--daily", type=float, default=1100.0, help="papers a day today (default 1,100)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args(argv)
    if args.scale < 100:
        parser.error("--scale must be at least 100")
    started = time.perf_counter()
    summary = build(args)
    print(describe(summary))
    print(f"done in {time.perf_counter() - started:.0f} s")
