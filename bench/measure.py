"""One measurement, run in a fresh child process so its peak memory is its own.

Ingest of OAI-PMH pages, as harvest/runs.py runs the OAI source (without the
run's own bookkeeping row and without network): the reader (a process, as the
OAI source asks: harvest/readahead.py, one page ahead) reads each page file and
parses it with the harvester's parser (`parse_list_records`) while this
process plans the next page in a thread (harvest/pipeline.py) and stores the
current one with `paper_upsert_many`, one transaction per page.
`parse_seconds` is the reader's time reading and parsing (it overlaps the
upserts), `parse_wait_seconds` the time the storing thread waited for a parsed
and planned page, `upsert_seconds` the time in the upsert transactions. Ingest of
a snapshot: `import_snapshot` over the file, as `manage.py import_snapshot`
runs it (its reader is a child process; its peak resident set is reported
apart, from RUSAGE_CHILDREN once it has ended). Parse-only: the bare parser over the same bytes (lxml
`etree.fromstring` per page; `json.loads` per line), and the project's parser
alone without a database, best of three runs each.

Memory: `ru_maxrss` (the process's peak resident set) and the current
resident set are sampled after every page (OAI) or batch (snapshot).
"""

from __future__ import annotations

import json
import os
import resource
import time
from contextlib import closing
from pathlib import Path

from django.db import connection, transaction
from lxml import etree

from harvest.pipeline import planned_ahead
from harvest.readahead import reading_ahead
from harvest.services import UpsertResult, paper_upsert_many
from harvest.sources.oai import ArxivOaiSource, parse_list_records
from harvest.sources.snapshot import import_snapshot, parse_snapshot_line

FIRST_MARK = 10


def _rss_kib() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() // 1024


def _maxrss_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _database_cpu() -> float | None:
    """CPU seconds so far of the whole PostgreSQL server serving this
    connection, read from /proc when it runs on this machine (None
    otherwise): every process the postmaster started, this connection's
    backend, the planner thread's (harvest/pipeline.py), the WAL writer that
    flushes commits made with synchronous_commit off, and those that have
    ended (their time is in the postmaster's children's times). Other
    databases' work on the same server counts too: run it on a quiet one."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    try:
        if Path(f"/proc/{backend}/comm").read_text().strip() != "postgres":
            return None  # a server elsewhere: this pid is some other local process
        postmaster = int(_stat_fields(backend)[1])
        fields = _stat_fields(postmaster)
    except OSError:
        return None
    # utime, stime, cutime and cstime: fields 14 to 17 of proc(5).
    ticks = sum(int(value) for value in fields[11:15])
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                child = _stat_fields(int(entry.name))
            except OSError:
                continue  # ended meanwhile
            if int(child[1]) == postmaster:
                ticks += int(child[11]) + int(child[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat from field 3 (state) on: the name before it may hold spaces."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _cpu_since(mark: float | None) -> float | None:
    now = _database_cpu()
    return None if mark is None or now is None else now - mark


def _cpu_marks() -> tuple[float | None, float]:
    """Where an ingest's CPU accounting starts: its database backend, this process."""
    return _database_cpu(), time.process_time()


def _cpu_report(marks: tuple[float | None, float]) -> dict:
    """CPU time since `marks` of the storing process (all its threads), of the
    reader process (ended by now) and of the PostgreSQL server (all its
    processes): where the two cores' time went."""
    database, process = marks
    reader = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "cpu_seconds": time.process_time() - process,
        "reader_cpu_seconds": reader.ru_utime + reader.ru_stime,
        "database_cpu_seconds": _cpu_since(database),
        "reader_peak_rss_mib": round(reader.ru_maxrss / 1024, 1),
    }


def _memory_summary(samples: list[tuple[int, int]]) -> dict:
    """samples: (maxrss, rss) in KiB after each page (or snapshot batch)."""
    first = samples[min(len(samples), FIRST_MARK) - 1][0]
    return {
        "peak_rss_mib": round(samples[-1][0] / 1024, 1),
        "peak_after_10_pages_mib": round(first / 1024, 1),
        "peak_growth_after_page_10_mib": round((samples[-1][0] - first) / 1024, 1),
        "pages_sampled": len(samples),
        "rss_per_page_mib": [round(rss / 1024, 1) for _, rss in samples],
    }


def ingest_oai(directory: Path) -> dict:
    totals = UpsertResult()
    parse_seconds = wait_seconds = upsert_seconds = 0.0
    records = skipped = 0
    samples = []

    def parsed_pages():
        # Runs where the harvest reads ahead (the reader process): each page
        # travels with the time it took to read and parse.
        for path in sorted(directory.glob("page-*.xml")):
            mark = time.perf_counter()
            page = parse_list_records(path.read_bytes())
            yield page, time.perf_counter() - mark

    marks, started = _cpu_marks(), time.perf_counter()
    pages = reading_ahead(parsed_pages(), mode=ArxivOaiSource.pages_read_ahead, name="bench-oai-reader")
    with closing(planned_ahead(pages, records_of=lambda item: item[0].records)) as planned:
        while True:
            mark = time.perf_counter()
            (page, parse_time), plan = next(planned, ((None, 0.0), None))
            parsed = time.perf_counter()
            wait_seconds += parsed - mark
            if page is None:
                break
            parse_seconds += parse_time
            with transaction.atomic():
                totals.add(paper_upsert_many(records=page.records, plan=plan, durable=False))
            upsert_seconds += time.perf_counter() - parsed
            records += len(page.records)
            skipped += page.skipped
            totals.created_version_ids.clear()  # counted, not kept: memory stays per page
            samples.append((_maxrss_kib(), _rss_kib()))
    seconds = time.perf_counter() - started
    return {
        "records": records,
        "pages": len(samples),
        "seconds": seconds,
        **_cpu_report(marks),
        "parse_seconds": parse_seconds,
        "parse_wait_seconds": wait_seconds,
        "upsert_seconds": upsert_seconds,
        "skipped": skipped,
        "counts": _counts(totals),
        "memory": _memory_summary(samples),
    }


def ingest_snapshot(path: Path, batch_size: int) -> dict:
    samples = []
    marks, started = _cpu_marks(), time.perf_counter()
    with path.open("rb") as lines:
        result = import_snapshot(
            lines=lines, batch_size=batch_size, progress=lambda _: samples.append((_maxrss_kib(), _rss_kib()))
        )
    seconds = time.perf_counter() - started
    samples.append((_maxrss_kib(), _rss_kib()))
    return {
        "records": result.kept,
        "pages": len(samples),
        "seconds": seconds,
        **_cpu_report(marks),
        "skipped": result.skipped,
        "counts": _counts(result),
        "memory": _memory_summary(samples),
    }


def _counts(result) -> dict:
    return {
        "new_papers": result.new_papers,
        "new_versions": result.new_versions,
        "updated": result.updated,
        "unchanged": result.unchanged,
    }


def _best(function, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def parse_only_oai(directory: Path) -> dict:
    paths = sorted(directory.glob("page-*.xml"))

    def bare() -> None:
        for path in paths:
            etree.fromstring(path.read_bytes())

    def iterparse() -> None:
        for path in paths:
            with path.open("rb") as stream:
                for _, element in etree.iterparse(stream, events=("end",), tag="{*}record"):
                    element.clear()

    def project() -> None:
        for path in paths:
            parse_list_records(path.read_bytes())

    return {
        "bare_seconds": _best(bare),
        "bare_iterparse_seconds": _best(iterparse),
        "project_parser_seconds": _best(project),
        "bytes": sum(path.stat().st_size for path in paths),
    }


def parse_only_snapshot(path: Path) -> dict:
    def bare() -> None:
        with path.open("rb") as lines:
            for line in lines:
                json.loads(line)

    def project() -> None:
        with path.open("rb") as lines:
            for line in lines:
                parse_snapshot_line(line)

    return {"bare_seconds": _best(bare), "project_parser_seconds": _best(project), "bytes": path.stat().st_size}


# The tables an ingest writes, referenced tables first (their keys are kept
# by the store and the ORM, not by database foreign keys: harvest/models.py).
_LIBRARY_TABLES = ("harvest_author", "harvest_paper", "harvest_version", "harvest_authorship", "harvest_papercategory")


def storage_floor() -> dict:
    """What PostgreSQL alone takes to store the rows an ingest just stored.

    Every row of the library tables is read out (binary COPY), the tables are
    emptied, and the same rows are written back by binary COPY in one
    transaction into the same tables with the same indexes and constraints:
    no parsing, no planning, no Python per row. No ingest of these records,
    by any client code, can store them faster than that on this server, so
    `seconds` over the bare parse time is a floor under the ingest's ratio to
    parse-only. The library is left holding the same rows;
    tables that point at papers (picks, guided readings) are emptied, which
    the benchmark's scratch library never fills. PostgreSQL only.
    """
    dumps: dict[str, bytes] = {}
    with connection.cursor() as cursor:
        for table in _LIBRARY_TABLES:
            with cursor.cursor.copy(f"COPY {table} TO STDOUT (FORMAT BINARY)") as copy:
                dumps[table] = b"".join(bytes(chunk) for chunk in copy)
        cursor.execute(f"TRUNCATE {', '.join(_LIBRARY_TABLES)} CASCADE")
        cursor.execute("CHECKPOINT")
        rows = {}
        started = time.perf_counter()
        with transaction.atomic():
            for table in _LIBRARY_TABLES:
                with cursor.cursor.copy(f"COPY {table} FROM STDIN (FORMAT BINARY)") as copy:
                    copy.write(dumps[table])
                rows[table] = cursor.cursor.rowcount
        seconds = time.perf_counter() - started
    return {"seconds": seconds, "rows": rows, "bytes": sum(len(data) for data in dumps.values())}
