"""The research-record files bench: export of a 5,000-record research record
in each format, and import of a 2,000-entry BibTeX file whose papers are all
in the library, on the bench library.

    python -m bench record_files [--records 5000] [--tags 50] [--import-entries 2000] [--export-runs 5] [--keep-records]
    (and from `make bench`: bench/portal.py calls run_record_files after the follows bench)

Uses DATABASE_URL (a copy of the bench library bench/data.py built; the
bench writes only its own user's rows there). How each figure is taken:

- the record: a bench user (`bench-records`, removed first and at the end
  unless `--keep`) with `--records` records over papers spread evenly over
  the library by id, `--tags` tags, each record holding 1-3 of them; written
  in bulk, then ANALYZEd (autovacuum is off on the bench server).
- export: accounts.record_export (the selectors the page and the API call)
  and the format's writer, in process, no view or middleware: one first
  call, then `--runs` timed ones; p50 and max. The full JSON includes the
  follows, exclusions and trail sections (empty for this user).
- import: a BibTeX file of `--import-entries` other library papers (written
  by the bench's own BibTeX writer, so arXiv's format, each entry with two
  tags) imported by a second bench user (`bench-records-import`) through
  accounts.record_import.records_import_file, all of it: reading, matching,
  2,000 record_save calls. Then the same file again (nothing to change).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime

from django.db import connection
from django.utils import timezone

from accounts.models import User
from accounts.records.export import export_citations, export_data, export_items
from accounts.records.files import ExportItem, bibtex
from accounts.records.imports import records_import_file
from accounts.records.models import Record, RecordTag, Tag
from bench import common
from harvest.models import Paper

EXPORT_TARGET_SECONDS = 2.0
IMPORT_TARGET_SECONDS = 10.0
OWNER, IMPORTER = "bench-records", "bench-records-import"
FORMATS = ("bibtex", "ris", "csljson", "json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """This bench's own options; --records and --tags are shared with
    bench/records.py when both run from bench/portal.py."""
    parser.add_argument("--import-entries", type=int, default=2000, help="entries of the imported BibTeX file")
    parser.add_argument("--export-runs", type=int, default=5, help="timed runs per export format")
    parser.add_argument("--keep-records", action="store_true", help="leave the bench users' records in place")


def remove_bench_users() -> int:
    deleted, _ = User.objects.filter(username__in=[OWNER, IMPORTER]).delete()
    return deleted


def _paper_ids(count: int, offset: int) -> list[int]:
    """`count` paper ids spread evenly over the library by id, from `offset` on."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id) FROM harvest_paper")
        low, high = cursor.fetchone()
    step = max(1, (high - low) // (count * 2 + 2))
    wanted = [low + offset + step * index for index in range(count * 2)]

    found = list(Paper.objects.filter(pk__in=wanted).order_by("pk").values_list("pk", flat=True))
    return found[:count]


def build_record(records: int, tags: int):
    """The exporting user with its records and tags, written in bulk."""
    user = User.objects.create_user(OWNER)
    now = timezone.now()
    made = Tag.objects.bulk_create([Tag(user=user, name=f"bench tag {n:02d}") for n in range(tags)])
    rows = Record.objects.bulk_create(
        [
            Record(user=user, paper_id=paper_id, saved_at=now, to_read_at=now, updated_at=now, note=f"note {n}")
            for n, paper_id in enumerate(_paper_ids(records, offset=0))
        ],
        batch_size=2000,
    )
    links = [
        RecordTag(record=row, tag=made[(n * 7 + k * 13) % tags], user=user)
        for n, row in enumerate(rows)
        for k in range(1 + n % 3)
    ]
    RecordTag.objects.bulk_create(links, batch_size=5000, ignore_conflicts=True)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_record, accounts_recordtag, accounts_tag")
    return user, len(rows), len(links)


def _timed(call, runs: int) -> dict:
    """Wall time, and this process's CPU time (what the machine's other load
    cannot inflate; the database server's share is in the wall time only)."""
    started = time.perf_counter()
    size = len(call())
    first = time.perf_counter() - started
    timings, cpu = [], []
    for _ in range(runs):
        started, cpu_started = time.perf_counter(), time.process_time()
        call()
        timings.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
    timings.sort()
    cpu.sort()
    return {
        "first_s": round(first, 3),
        "p50_s": round(timings[len(timings) // 2], 3),
        "max_s": round(timings[-1], 3),
        "cpu_p50_s": round(cpu[len(cpu) // 2], 3),
        "runs": runs,
        "bytes": size,
        "load_average": os.getloadavg(),
    }


def measure_exports(user, runs: int) -> dict:
    figures = {}
    for kind in FORMATS:
        if kind == "json":
            call = lambda: json.dumps(export_data(user=user), ensure_ascii=False).encode()  # noqa: E731
        else:
            call = lambda k=kind: export_citations(user=user, format=k).encode()  # noqa: E731
        result = _timed(call, runs)
        result["meets_target"] = result["max_s"] <= EXPORT_TARGET_SECONDS
        figures[kind] = result
        print(f"  records export {kind}: max {result['max_s']:.2f} s", file=sys.stderr, flush=True)
    return figures


def measure_import(entries: int) -> dict:
    papers = Paper.objects.filter(pk__in=_paper_ids(entries, offset=1)).order_by("pk")
    items = [
        ExportItem(
            arxiv_id=p.arxiv_id,
            title=p.title,
            authors=p.authors,
            abstract="",
            primary_category=p.primary_category,
            categories=p.categories,
            doi=(p.doi.split() or [""])[0],
            published=p.published,
            updated=p.updated,
            latest_version=p.latest_version,
            tags=["imported", f"group {p.pk % 20}"],
        )
        for p in papers
    ]
    data = bibtex.write(items).encode()
    importer = User.objects.create_user(IMPORTER)
    started, cpu_started = time.perf_counter(), time.process_time()
    first = records_import_file(user=importer, data=data, filename="bench.bib")
    first_seconds, first_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_record, accounts_recordtag, accounts_tag")
    started = time.perf_counter()
    again = records_import_file(user=importer, data=data, filename="bench.bib")
    again_seconds = time.perf_counter() - started
    assert len(export_items(user=importer)) == Record.objects.filter(user=importer).count()
    result = {
        "entries": len(items),
        "bytes": len(data),
        "first_import_s": round(first_seconds, 2),
        "first_import_cpu_s": round(first_cpu, 2),
        "load_average": os.getloadavg(),
        "matched": first.count("matched"),
        "saved": first.saved,
        "same_file_again_s": round(again_seconds, 2),
        "saved_again": again.saved,
        "target_seconds": IMPORT_TARGET_SECONDS,
        "meets_target": first_seconds <= IMPORT_TARGET_SECONDS,
    }
    print(f"  records import: {first_seconds:.1f} s first, {again_seconds:.1f} s again", file=sys.stderr, flush=True)
    return result


def run_record_files(args: argparse.Namespace) -> dict:
    """After django.setup() on the bench library's database."""
    remove_bench_users()
    started = time.perf_counter()
    user, records, links = build_record(args.records, args.tags)
    built = time.perf_counter() - started
    exports = measure_exports(user, args.export_runs)
    imported = measure_import(args.import_entries)
    removed = "kept (--keep-records)" if args.keep_records else remove_bench_users()
    return {
        "record": {"records": records, "tags": args.tags, "tag_links": links, "build_seconds": round(built, 1)},
        "export_target_seconds": EXPORT_TARGET_SECONDS,
        "exports": exports,
        "import": imported,
        "removed": removed,
    }


def lines(report: dict) -> list[str]:
    out = [f"research-record files: {report['record']['records']:,} records, {report['record']['tags']} tags"]
    for kind, f in report["exports"].items():
        verdict = "yes" if f["meets_target"] else "NO"
        out.append(
            f"  export {kind:8} first {f['first_s']:.2f} s, p50 {f['p50_s']:.2f} s, max {f['max_s']:.2f} s, "
            f"CPU p50 {f['cpu_p50_s']:.2f} s "
            f"({f['bytes'] / 2**20:.1f} MiB; target {report['export_target_seconds']} s: {verdict})"
        )
    i = report["import"]
    verdict = "yes" if i["meets_target"] else "NO"
    out.append(
        f"  import of a {i['entries']:,}-entry BibTeX file (all in the library): {i['first_import_s']:.1f} s "
        f"(CPU {i['first_import_cpu_s']:.1f} s), "
        f"{i['saved']:,} records saved (target {i['target_seconds']} s: {verdict}); the same file again "
        f"{i['same_file_again_s']:.1f} s, {i['saved_again']} saved"
    )
    return out


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=5000, help="records of the exporting bench user")
    parser.add_argument("--tags", type=int, default=50, help="tags of the exporting bench user")
    add_arguments(parser)
    parser.add_argument("--results", default=str(common.RESULTS))
    args = parser.parse_args(argv)

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM harvest_paper")
        scale = cursor.fetchone()[0]
    report = {
        "benchmark": "research-record files",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "papers_in_library": scale,
        "machine": common.machine(connection),
        **run_record_files(args),
    }
    print("\n".join(lines(report)))
    common.write_report(report, args.results, f"record-files-scale{scale}")
