"""`make bench SCALE=1000000`: the portal and the harvest on a library of that size.

    python -m bench portal --scale 1000000 [--runs 30] [--http-runs 15] [--ingest 20000] [--rebuild]
                           [--only TEXT ...]   (scenarios whose name contains one of the texts;
                                                `--only follows`: the follows bench alone)
                           [--no-follows] [--users 10000] [--follow-runs 30] [--keep] (bench/follows.py)
                           [--no-records] [--records 5000] [--tags 50] [--record-runs 30] (bench/records.py)
                           [--no-record-files] [--import-entries 2000] [--export-runs 5] (bench/record_files.py)
                           [--no-alerts] [--alert-users 10000] [--feed-runs 30] (bench/alerts.py)
                           [--no-recommend] [--rec-users 10000] [--rec-saves 500] (bench/recommend.py)

Uses DATABASE_URL (PostgreSQL; default postgres://postgres@127.0.0.1:5432/
papertrail_bench). If that database does not hold a synthetic library of the
requested scale (table `bench_library`), bench/data.py builds it first.

How each figure is taken:

- server time, in process: Django's test client calls the project's WSGI
  handler in this process (middleware, view, SQL, template or serializer; no
  network, no web server). Each scenario is requested once untimed-as-warm
  (its "first" time: PostgreSQL's and the OS's caches as the previous
  scenarios left them, the page cache never dropped) and then `--runs` times;
  p50 and p95 over those runs. Requests that rotate over several papers do so
  run by run. The overview and the API stats are measured three ways: with
  the numbers the stats task stored; right after the task recomputed them
  (before every run, untimed: what a request meets after the minute's
  refresh); and with nothing stored (before every run, so the request
  computes them itself, as it does when no worker refreshes them). The
  task's own time is reported beside them (worker time, not a request).
- HTTP, end to end: gunicorn (2 sync workers, as deployed) on loopback, timed
  by a keep-alive client, `--http-runs` runs per scenario after one warm-up.
- peak memory: VmHWM of each gunicorn process after the HTTP runs (web), and
  ru_maxrss of the process that ingested the harvest pages (worker side: the
  same parse and upsert code a Celery harvest task runs).
- ingest: `--ingest` new records as arXivRaw ListRecords pages of 1,000 built
  by bench/inputs.py (ids in the month after the library's newest, so every
  record is a new paper), parsed and stored by bench/measure.py in a child
  process, into the large library, against the parse-only time of the same
  bytes; the ingested rows are deleted afterwards and the tables vacuumed.

- follows: after the rest, bench/follows.py (see there) builds 10,000
  readers with 30 follows each, matches an announcement day against them in
  a child process and times their trail, unread counts and the follow
  preview; its rows join the table and its figures the JSON ("follows").
- records: then bench/records.py (see there) saves 5,000 papers with 50
  tags for one reader and times /records/ (first page, each filter and
  sort) and the API's list; its rows join the table, the rest the JSON
  ("records").
- record files: then bench/record_files.py (see there) exports a 5,000-record
  research record in each format and imports a 2,000-entry BibTeX file of
  library papers; its figures are printed after the table and are in the
  JSON ("record_files"). `--only records`: this bench alone (with the rest
  of `--only`'s scenarios).
- alerts: then bench/alerts.py (see there) builds 10,000 readers with 20
  follows each and a day's trail, sends the day's daily alerts to a local
  SMTP server and times the private feeds ("alerts").
- recommend: then bench/recommend.py (see there): training from 500 saves,
  scoring an announcement day for 10,000 users with models in a child
  process (its peak memory), and the Recommended tab; JSON "recommend".

API throttling is raised for the run (PAPERTRAIL_API_ANON_RATE) so that the
benchmark measures the API, not 429s; the throttle's cache round trip stays in.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from django.db import connection
from django.http import QueryDict

from bench import alerts, common, data, follows, inputs, recommend, record_files, records, serve, sidebyside
from bench.alerts import run_alerts
from bench.follows import run_follows
from bench.portal_report import markdown, table
from bench.recommend import run_recommend
from bench.record_files import run_record_files
from bench.records import run_records
from bench.scenarios import TARGETS_MS, Scenario, scenarios
from bench.timing import time_http, time_in_process, time_stats_task
from harvest.filters import SORT_POPULAR, SORT_UPDATED, PaperFilterSet, sorted_papers
from harvest.models import Author, Paper
from portal.pagination import keyset_page
from portal.stats.windows import display_zone

ROOT = Path(__file__).resolve().parent.parent


def pick_inputs(meta: dict) -> dict:
    """Authors and papers to request, found in the library."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.name, count(*) FROM harvest_authorship s JOIN harvest_author a ON a.id = s.author_id "
            "WHERE s.author_id IN (1, 2, 3) GROUP BY a.name ORDER BY 2 DESC LIMIT 1"
        )
        prolific = cursor.fetchone()
        cursor.execute(
            "SELECT a.name FROM harvest_author a WHERE a.id > (SELECT max(id) / 2 FROM harvest_author) "
            "AND (SELECT count(*) FROM harvest_authorship s WHERE s.author_id = a.id) = 1 ORDER BY a.id LIMIT 1"
        )
        single = cursor.fetchone()[0]
        cursor.execute(
            "(SELECT arxiv_id FROM harvest_paper WHERE version_count > 1 ORDER BY updated DESC NULLS LAST, id DESC "
            "LIMIT 4) UNION ALL (SELECT arxiv_id FROM harvest_paper ORDER BY version_count DESC LIMIT 1) "
            "UNION ALL (SELECT arxiv_id FROM harvest_paper WHERE id IN (7, 1000, 20000) ) "
            "UNION ALL (SELECT arxiv_id FROM harvest_paper ORDER BY updated DESC NULLS LAST, id DESC LIMIT 2)"
        )
        papers = [row[0] for row in cursor.fetchall()]
    return {"prolific_author": prolific[0], "prolific_papers": prolific[1], "single_author": single, "papers": papers}


def search_matches(scenario_list: list[Scenario]) -> dict[str, int]:
    """How many papers each full-text scenario matches (the selectivity measured)."""
    matches = {}
    for scenario in scenario_list:
        if scenario.group.startswith("search") and scenario.urls[0].startswith("/papers/"):
            filterset = PaperFilterSet(QueryDict(scenario.urls[0].split("?", 1)[1]))
            assert filterset.is_valid(), filterset.errors
            matches[scenario.name.removeprefix("/papers/ ")] = filterset.qs.order_by().count()
    return matches


def ingest(url: str, meta: dict, records: int, seed: int) -> dict:
    """New arXivRaw records into the large library through the bench helper's
    measure.ingest_oai (child process), then deleted again."""
    now = datetime.fromisoformat(meta["parameters"]["now"])
    series_month = (now.year - inputs.FIRST_MONTH[0]) * 12 + now.month - inputs.FIRST_MONTH[1] + 1
    last_paper = Paper.objects.order_by("-id").values_list("id", flat=True).first()
    last_author = Author.objects.order_by("-id").values_list("id", flat=True).first()
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    database = common.database_name(url)

    def child(kind: str, path: Path) -> dict:
        command = [
            sys.executable,
            "-m",
            "bench",
            "harvest",
            "--child",
            kind,
            "--input",
            str(path),
            "--database",
            database,
        ]
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
        if done.returncode:
            raise SystemExit(f"{kind} failed:\n{done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    with tempfile.TemporaryDirectory(prefix="pt-scale-ingest-") as tmp:
        pages = Path(tmp)
        inputs.write_oai_pages(pages, papers=records, page_size=1000, series_month=series_month, seed=seed)
        parse = child("parse-oai", pages)
        result = child("ingest-oai", pages)
        indexed = child("index", pages)  # the full-text pass the product runs after a harvest

    with connection.cursor() as cursor:
        for table in ("harvest_authorship", "harvest_papercategory", "harvest_version", "harvest_communitypick"):
            cursor.execute(f"DELETE FROM {table} WHERE paper_id > %s", [last_paper])  # noqa: S608
        cursor.execute("DELETE FROM harvest_paper WHERE id > %s", [last_paper])
        cursor.execute("DELETE FROM harvest_author WHERE id > %s", [last_author])
        # The deleted rows sit at the newest end of the indexes the overview
        # and the default sort read: cleared now, not whenever autovacuum
        # comes, so that a later run measures the library it was built as.
        cursor.execute(
            "VACUUM ANALYZE harvest_paper, harvest_version, harvest_author, harvest_authorship, harvest_papercategory"
        )
    rate = result["records"] / result["seconds"]
    return {
        "records": result["records"],
        "seconds": result["seconds"],
        "records_per_second": rate,
        "parse_only_seconds": parse["bare_seconds"],
        "ratio_to_parse_only": result["seconds"] / parse["bare_seconds"],
        "counts": result["counts"],
        "worker_peak_rss_mib": result["memory"]["peak_rss_mib"],
        "worker_cpu_seconds": result["cpu_seconds"],
        "reader_cpu_seconds": result["reader_cpu_seconds"],
        "database_cpu_seconds": result["database_cpu_seconds"],
        "meets_target": rate >= 5000,
        "search_index": indexed,
        "searchable_records_per_second": result["records"] / (result["seconds"] + indexed["seconds"]),
    }


def run(args: argparse.Namespace) -> dict:
    url = common.database_url()
    meta = common.library_meta(url)
    if args.rebuild or not meta or meta["parameters"]["scale"] != args.scale:
        print(f"building the library of {args.scale:,} papers first", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "bench", "data", "--scale", str(args.scale)], cwd=ROOT, check=True)
        meta = common.library_meta(url)
        assert data and meta

    machine = common.machine(connection)
    picked = pick_inputs(meta)
    today = datetime.now(UTC).astimezone(display_zone()).date()
    plan = scenarios(
        tiers=meta["query_tiers"],
        authors=(picked["prolific_author"], picked["single_author"]),
        paper_ids=picked["papers"],
        today_beijing=today,
    )

    cursor = keyset_page(
        sorted_papers(Paper.objects.all(), SORT_UPDATED), sort=SORT_UPDATED, cursor=None, size=20
    ).next_cursor
    next(s for s in plan if s.name.startswith("/papers/ page 2")).urls.append(f"/papers/?cursor={cursor}")
    popular = PaperFilterSet(QueryDict("sort=popular"))
    assert popular.is_valid(), popular.errors
    cursor = keyset_page(popular.qs, sort=SORT_POPULAR, cursor=None, size=20).next_cursor
    if cursor:  # a window of fewer than 21 papers has no second page (a tiny library)
        for name, path in (("/papers/ popular page 2", "/papers/"), ("API papers popular page 2", "/api/v1/papers/")):
            next(s for s in plan if s.name.startswith(name)).urls.append(f"{path}?sort=popular&cursor={cursor}")
    plan = [s for s in plan if s.urls]
    if args.only:
        plan = [s for s in plan if any(text in s.name for text in args.only)]
    started = time.perf_counter()
    results = []
    for scenario in plan:
        figures = time_in_process(scenario, args.runs)
        target = TARGETS_MS[scenario.group]
        results.append(
            {
                "name": scenario.name,
                "group": scenario.group,
                "note": scenario.note,
                "urls": scenario.urls[:3],
                "target_p95_ms": target,
                "in_process": figures,
                "meets_target": figures["p95_ms"] <= target,
            }
        )
        print(f"  {scenario.name}: p95 {figures['p95_ms']:.1f} ms", file=sys.stderr, flush=True)
    in_process_seconds = time.perf_counter() - started
    stats_task = time_stats_task(args.runs)
    matches = search_matches(plan)
    web = None
    if args.http_runs:
        with serve.gunicorn(common.BENCH_ENV) as (base, master):
            for scenario, result in zip(plan, results, strict=True):
                result["http"] = time_http(base, scenario, args.http_runs)
            workers = serve.children(master)
            web = {
                "workers": len(workers),
                "worker_peak_rss_mib": [round(serve.peak_rss_mib(pid) or 0, 1) for pid in workers],
                "master_peak_rss_mib": round(serve.peak_rss_mib(master) or 0, 1),
            }
    harvest = ingest(url, meta, args.ingest, args.seed) if args.ingest else None
    side_by_side = sidebyside.measure(plan, results, args.runs)  # after the ingest: its child forks this process
    followed = None
    if args.follows and (not args.only or "follows" in args.only):
        followed = run_follows(url, meta, args)
        results += followed.pop("results")
    recorded = None
    if args.records and (not args.only or "records" in args.only):
        recorded = run_records(url, args)
        results += recorded.pop("results")
    record_file_figures = None
    if args.record_files and (not args.only or "records" in args.only):
        record_file_figures = run_record_files(args)
    alerted = None
    if args.alerts and (not args.only or "alerts" in args.only):
        alerted = run_alerts(url, args)
        results += alerted.pop("results")
    recommended = None
    if args.recommend and (not args.only or "recommend" in args.only):
        os.environ.update(common.RECOMMEND_ENV)  # read by the scoring child; this process's settings are loaded
        recommended = run_recommend(url, args)
    machine["load_average_at_end"] = os.getloadavg()
    return {
        "benchmark": "portal at scale",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "scale": args.scale,
        "library": {
            "parameters": meta["parameters"],
            "rows": meta["rows"],
            "query_tiers": meta["query_tiers"],
            "build_seconds": meta["timings_seconds"],
            "built_on": meta["machine"],
        },
        "inputs": picked,
        "search_matches": matches,
        "method": {
            "in_process": f"Django test client in process, 1 first request + {args.runs} timed runs per scenario",
            "http": f"gunicorn {2} sync workers on loopback, 1 warm-up + {args.http_runs} runs, keep-alive client",
            "caches": "PostgreSQL and OS caches warm from the previous scenarios; page cache never dropped",
        },
        "machine": machine,
        "results": results,
        "web_memory": web,
        "ingest": harvest,
        "in_process_seconds": round(in_process_seconds, 1),
        "stats_task": stats_task,
        "follows": followed,
        "records": recorded,
        "record_files": record_file_figures,
        "alerts": alerted,
        "recommend": recommended,
        "side_by_side": side_by_side,
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30, help="timed in-process runs per scenario")
    parser.add_argument("--http-runs", type=int, default=15, help="timed HTTP runs per scenario (0: skip)")
    parser.add_argument("--ingest", type=int, default=20_000, help="records ingested into the library (0: skip)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rebuild", action="store_true", help="build the library even if one of this scale exists")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="only the scenarios whose name contains a TEXT")
    parser.add_argument(
        "--no-follows", dest="follows", action="store_false", help="skip the follows bench (bench/follows.py)"
    )
    follows.add_arguments(parser)
    parser.add_argument(
        "--no-records", dest="records", action="store_false", help="skip the research-record bench (bench/records.py)"
    )
    records.add_arguments(parser)
    parser.add_argument(
        "--no-record-files",
        dest="record_files",
        action="store_false",
        help="skip the research-record files bench (bench/record_files.py)",
    )
    record_files.add_arguments(parser)
    parser.add_argument(
        "--no-alerts", dest="alerts", action="store_false", help="skip the alerts bench (bench/alerts.py)"
    )
    alerts.add_arguments(parser)
    parser.add_argument("--no-recommend", dest="recommend", action="store_false", help="skip the recommendations bench")
    recommend.add_arguments(parser)
    parser.add_argument("--results", default=str(common.RESULTS))
    parser.add_argument("--tag", default="", help="suffix of the results file name, e.g. the server's configuration")
    parser.add_argument("--render", nargs="+", metavar="LABEL=FILE", help="print saved results as Markdown")
    args = parser.parse_args(argv)
    if args.render:
        pairs = [item.split("=", 1) for item in args.render]
        print(markdown([(label, json.loads(Path(path).read_text())) for label, path in pairs]))
        return
    report = run(args)
    print(table(report))
    tag = f"-{args.tag}" if args.tag else ""
    common.write_report(report, args.results, f"scale{args.scale}{tag}")
