"""The research-record bench: one reader holding 5,000 saved papers of the
bench library with 50 tags, then `/records/` (first page, a later page, each
filter and sort) and the API's list, timed in process.

    python -m bench records --scale 1000000 [--records 5000] [--tags 50] [--runs 30] [--keep]
    (and from `make bench`: bench/portal.py calls run_records after the follows bench)

Uses DATABASE_URL (the bench library bench/data.py built). How each figure is taken:

- the reader: user `bench-records` (any earlier one is removed first, with
  its records, and at the end unless `--keep`); `--records` papers drawn
  evenly at random (seed `--record-seed`) from the whole library, saved over
  the last two years; states a half to read, a third reading, the rest
  read; 0-3 tags a record from `--tags` tags, the first tags most used
  (Zipf-like); a note on a quarter of them (words from a small vocabulary);
  the last read version set on 40 % (v1, so the revised ones show as
  "revised since I read it"). Written with bulk inserts and the records'
  copies of their papers refreshed, then VACUUM ANALYZE (autovacuum is off
  on the bench server, and earlier readers leave dead rows).
- each URL: django.test.Client signed in as the reader (session, middleware,
  view, template: the page a browser gets, minus the network); one first
  request, then `--runs` timed ones; wall p50 and p95, and the Python
  process's own CPU time per request (without the database server's, and
  without waiting for a core: on a shared machine the wall time is mostly
  the queue); the queries of one more.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from accounts.records.models import Record, RecordTag, Tag
from accounts.records.services import records_refresh_papers
from bench import common
from bench.common import percentile

TARGET_MS = 100
READER = "bench-records"
NOTE_WORDS = ("baseline", "ablation", "reproduce", "compare", "theorem", "dataset", "citation", "benchmark", "idea")


def remove_reader() -> int:
    deleted, _ = User.objects.filter(username=READER).delete()
    return deleted


def build_reader(*, records: int, tags: int, seed: int):
    """The reader and their records, tags and notes (see the module's docstring)."""
    rng = random.Random(seed)
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id) FROM harvest_paper")
        low, high = cursor.fetchone()
        wanted = sorted(rng.sample(range(low, high + 1), min(high - low + 1, records * 2)))
        cursor.execute("SELECT id FROM harvest_paper WHERE id = ANY(%s)", [wanted])
        found = [row[0] for row in cursor.fetchall()]
    paper_ids = rng.sample(found, min(records, len(found)))
    user = User.objects.create_user(READER, password=None)
    tag_rows = Tag.objects.bulk_create([Tag(user=user, name=f"topic-{n:02d}") for n in range(tags)])
    now = datetime.now(UTC)
    states = ["to_read"] * 3 + ["reading"] * 2 + ["read"]
    rows = []
    for paper_id in paper_ids:
        saved = now - timedelta(minutes=rng.randrange(2 * 365 * 24 * 60))
        state = rng.choice(states)
        note = " ".join(rng.choice(NOTE_WORDS) for _ in range(rng.randrange(5, 40))) if rng.random() < 0.25 else ""
        rows.append(
            Record(
                user=user,
                paper_id=paper_id,
                saved_at=saved,
                updated_at=saved,
                state=state,
                to_read_at=saved,
                reading_at=saved if state != "to_read" else None,
                read_at=saved if state == "read" else None,
                note=note,
                note_updated_at=saved if note else None,
                last_read_version=1 if rng.random() < 0.4 else None,
            )
        )
    saved_rows = Record.objects.bulk_create(rows, batch_size=2000)
    weights = [1 / (rank + 1) for rank in range(len(tag_rows))]
    links = []
    for record in saved_rows:
        for tag in {id(t): t for t in rng.choices(tag_rows, weights=weights, k=rng.randrange(4))}.values():
            links.append(RecordTag(record=record, tag=tag, user=user))
    RecordTag.objects.bulk_create(links, batch_size=5000, ignore_conflicts=True)
    records_refresh_papers(paper_ids=paper_ids, user=user)
    with connection.cursor() as cursor:
        # VACUUM too: earlier bench readers' rows are dead tuples the scans
        # would read (not possible inside a transaction: the tests' run).
        command = "ANALYZE" if connection.in_atomic_block else "VACUUM ANALYZE"
        for table in ("accounts_record", "accounts_recordsearch", "accounts_recordtag", "accounts_tag"):
            cursor.execute(f"{command} {table}")
    return user, len(saved_rows), len(links)


def scenarios(user, tags: int) -> list[tuple[str, str]]:
    """(name, URL): the first page and each filter and sort, with values drawn from the reader's own records."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.category, count(*) FROM accounts_record r JOIN harvest_papercategory c ON c.paper_id = r.paper_id"
            " WHERE r.user_id = %s GROUP BY c.category ORDER BY count(*) DESC",
            [user.pk],
        )
        categories = cursor.fetchall()
        cursor.execute(
            "SELECT w FROM (SELECT unnest(string_to_array(lower(p.title), ' ')) AS w FROM accounts_record r"
            " JOIN harvest_paper p ON p.id = r.paper_id WHERE r.user_id = %s) t WHERE length(w) > 6"
            " GROUP BY w ORDER BY count(*) DESC LIMIT 1",
            [user.pk],
        )
        title_word = cursor.fetchone()[0]
    common_category, rare_category = categories[0][0], categories[-1][0]
    return [
        ("/records/ first page", "/records/"),
        ("/records/ page 50 (records 981-1000)", "/records/?page=50"),
        ("tag, most used", "/records/?tag=topic-00"),
        ("tag, least used", f"/records/?tag=topic-{tags - 1:02d}"),
        ("state reading", "/records/?state=reading"),
        (f"category {common_category} (most of the record's)", f"/records/?category={common_category}"),
        (f"category {rare_category} (rarest)", f"/records/?category={rare_category}"),
        ("revised since I read it", "/records/?revised=1"),
        ("search a note word", "/records/?q=ablation"),
        (f"search a title word ({title_word})", f"/records/?q={title_word}"),
        ("search a word nowhere", "/records/?q=zyxwvutsrq"),
        ("sort by paper update", "/records/?sort=updated"),
        ("sort by title", "/records/?sort=title"),
        ("tag + state + sort by title", "/records/?tag=topic-01&state=to_read&sort=title"),
        ("API list, first page", "/api/v1/me/records/"),
        ("API tags and counts", "/api/v1/me/tags/"),
    ]


def measure(user, tags: int, runs: int) -> list[dict]:
    client = Client()
    client.force_login(user)
    results = []
    for name, url in scenarios(user, tags):
        timings, cpu, first, statuses = [], [], 0.0, set()
        for run in range(runs + 1):
            started, started_cpu = time.perf_counter(), time.process_time()
            response = client.get(url)
            elapsed = (time.perf_counter() - started) * 1000
            statuses.add(response.status_code)
            if run == 0:
                first = elapsed
            else:
                timings.append(elapsed)
                cpu.append((time.process_time() - started_cpu) * 1000)
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        p95 = percentile(timings, 0.95)
        results.append(
            {
                "name": f"records {name}",
                "group": "records",
                "urls": [url],
                "target_p95_ms": TARGET_MS,
                "note": "in process, signed in",
                "in_process": {
                    "first_ms": first,
                    "p50_ms": percentile(timings, 0.5),
                    "p95_ms": p95,
                    "max_ms": max(timings),
                    "runs": runs,
                    "statuses": sorted(statuses),
                    "python_cpu_p50_ms": percentile(cpu, 0.5),
                    "python_cpu_p95_ms": percentile(cpu, 0.95),
                    "queries": len(queries),
                },
                "meets_target": p95 <= TARGET_MS and statuses == {200},
            }
        )
        print(f"  records {name}: p95 {p95:.1f} ms", file=sys.stderr, flush=True)
    return results


def run_records(url: str, args: argparse.Namespace) -> dict:
    """Build the reader, measure, clean up; after django.setup() on the library's database."""
    remove_reader()
    started = time.perf_counter()
    user, records, links = build_reader(records=args.records, tags=args.tags, seed=args.record_seed)
    built = time.perf_counter() - started
    print(f"  records: {records:,} records, {links:,} tag links in {built:.0f} s", file=sys.stderr, flush=True)
    results = measure(user, args.tags, args.record_runs)
    removed = "kept (--keep)" if args.keep else remove_reader()
    return {
        "reader": {
            "records": records,
            "tags": args.tags,
            "tag_links": links,
            "seed": args.record_seed,
            "build_seconds": round(built, 1),
        },
        "results": results,
        "removed": removed,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--records", type=int, default=5000, help="the bench reader's saved papers")
    parser.add_argument("--tags", type=int, default=50, help="the bench reader's tags")
    parser.add_argument("--record-seed", type=int, default=1)
    parser.add_argument("--record-runs", type=int, default=30, help="timed runs per /records/ figure")


def main(argv: list[str]) -> None:
    parser = common.scale_parser(__doc__, tag="records")
    parser.add_argument("--keep", action="store_true", help="leave the bench reader and their records in place")
    add_arguments(parser)
    args = parser.parse_args(argv)
    url = common.database_url()
    common.required_library(url, args.scale)
    common.finish_scale_report(
        args,
        connection,
        benchmark="research records at scale",
        key="records",
        figures=run_records(url, args),
        summary=[],
    )
