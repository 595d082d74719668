"""What the scale benchmarks share: the database they use, the machine they
ran on, percentiles and the results file."""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/papertrail_bench"
RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parent.parent
# The test client's host and gunicorn's on loopback.
TEST_CLIENT_ENV = {"DJANGO_ALLOWED_HOSTS": "testserver,127.0.0.1,localhost"}
# API throttling raised, so that a benchmark measures the API, not 429s.
BENCH_ENV = {
    "PAPERTRAIL_API_ANON_RATE": "100000000/min",
    "PAPERTRAIL_API_USER_RATE": "100000000/min",
    **TEST_CLIENT_ENV,
}
# The bench library's papers are years old: the recommendations look at all of them.
RECOMMEND_ENV = {
    "PAPERTRAIL_RECOMMEND_WINDOW_DAYS": "36500",
    "PAPERTRAIL_RECOMMEND_RETRAIN_DELAY": "0",
    **TEST_CLIENT_ENV,
}


def database_url() -> str:
    """DATABASE_URL if it names PostgreSQL, else the bench's default database
    (the synthetic library is written with COPY, so PostgreSQL only)."""
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        return url
    if url:
        raise SystemExit(f"DATABASE_URL={url!r}: the scale benchmark needs PostgreSQL")
    return DEFAULT_DATABASE_URL


def use_database(url: str) -> None:
    """Point the project's settings at `url` (before django.setup())."""
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "papertrail.settings.test")


def library_meta(url: str) -> dict | None:
    """The parameters of the synthetic library at `url` (table `bench_library`), or None."""
    try:
        with psycopg.connect(psycopg_url(url)) as conn:
            return dict(conn.execute("SELECT key, value FROM bench_library").fetchall())
    except psycopg.Error:
        return None


def required_library(url: str, scale: int) -> dict:
    """The library's parameters, or an exit naming the make target that builds it."""
    meta = library_meta(url)
    if not meta or meta["parameters"]["scale"] != scale:
        raise SystemExit(f"no bench library of {scale:,} papers in {database_name(url)}: make bench-data")
    return meta


def maintenance_url(url: str) -> str:
    """The same server's `postgres` database, to create and drop others."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/postgres", parts.query, parts.fragment))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def psycopg_url(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1)


def machine(connection=None) -> dict:
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    details = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), ""),
        "cores": os.cpu_count(),
        "memory_gib": round(
            next((int(line.split()[1]) for line in meminfo if line.startswith("MemTotal")), 0) / 2**20, 1
        ),
        "load_average": os.getloadavg(),
    }
    if connection is not None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            details["postgresql"] = cursor.fetchone()[0]
            for name in (
                "shared_buffers",
                "work_mem",
                "effective_cache_size",
                "random_page_cost",
                "max_parallel_workers_per_gather",
                "jit",
            ):
                cursor.execute(f"SHOW {name}")
                details[name] = cursor.fetchone()[0]
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    details["commit"] = git.stdout.strip()
    return details


def percentile(values: list[float], share: float) -> float:
    """Linear interpolation between the closest ranks (share 0.95: p95)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * share
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def write_report(report: dict, results: str | Path, name: str) -> Path:
    """Write a run's JSON as results/<today, UTC>-<name>.json and say where."""
    out = Path(results)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{datetime.now(UTC).date().isoformat()}-{name}.json"
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"\nwritten to {path}")
    return path


def scale_parser(doc: str, *, tag: str) -> argparse.ArgumentParser:
    """The arguments every bench over the synthetic library takes."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--results", default=str(RESULTS))
    parser.add_argument("--tag", default=tag)
    return parser


def target_lines(results: list[dict]) -> list[str]:
    """One line per timed figure: first, p50, p95 (and CPU p50 where measured) against its target."""
    rows = [f"{'figure':58} {'first':>7} {'p50':>7} {'p95':>7} {'cpu p50':>7} {'target':>6}  met"]
    for result in results:
        timed = result["in_process"]
        cpu = f"{timed['python_cpu_p50_ms']:>7.1f}" if "python_cpu_p50_ms" in timed else f"{'':>7}"
        met = "yes" if result["meets_target"] else "NO"
        rows.append(
            f"{result['name'][:58]:58} {timed['first_ms']:>7.1f} {timed['p50_ms']:>7.1f} {timed['p95_ms']:>7.1f} "
            f"{cpu} {result['target_p95_ms']:>6}  {met}"
        )
    return rows


def finish_scale_report(
    args: argparse.Namespace, connection, *, benchmark: str, key: str, figures: dict, summary: list[str]
) -> Path:
    """Print a library bench's figures and write its JSON (results/<date>-<tag>-scale<scale>.json)."""
    report = {"benchmark": benchmark, "scale": args.scale, "machine": machine(connection), key: figures}
    report["machine"]["load_average_at_end"] = os.getloadavg()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("\n".join([*summary, *target_lines(figures["results"])]))
    return write_report(report, args.results, f"{args.tag}-scale{args.scale}")
