"""What the scale benchmarks share: the database they use, the machine they
ran on, percentiles and the results file."""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/papertrail_bench"
RESULTS = Path(__file__).resolve().parent / "results"


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
