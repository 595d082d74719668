"""The follows bench: an announcement day matched against every follow of
10,000 readers, then their trail and the follow preview, on the bench library.

    python -m bench follows --scale 100000 [--users 10000] [--runs 30] [--keep] [--previews-only]
    (and from `make bench`: bench/portal.py calls run_follows after its scenarios)

Uses DATABASE_URL (the bench library bench/data.py built, default
postgres://postgres@127.0.0.1:5432/papertrail_bench). How each figure is taken:

- readers: bench/follows_data.py draws them from `--follow-seed` and writes
  them by COPY, then ANALYZE (autovacuum is off on the bench server); any
  earlier bench readers are removed first, and all of them at the end unless
  `--keep`.
- the day: the library's newest `--new` first versions and `--revisions`
  later versions (by discovered_at), as one harvest's batch.
- matching: in a child process, the Celery task's code path
  (accounts.follow_matching.match_versions: each distinct follow definition
  evaluated once against the day's index, its matches written by COPY):
  wall time, ru_maxrss of the process, then ANALYZE of the matches.
- the first read after the day: for each of 30 readers spread over the ids,
  the first page and the unread counts, each composed from the day's
  definition matches (accounts.trail.composition), once a reader.
- the trail, its unread counts and the preview: in process through the
  selectors and services the pages call (accounts.selectors.trail_page and
  trail_unread_counts, accounts.follows.follow_preview; no view, template or
  middleware), rotating over 30 readers (and over the preview's values);
  one first call, then `--runs` timed ones; p50 and p95.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.follows.selectors import follow_preview
from accounts.models import User
from accounts.trail.matching import day_index, match_versions
from accounts.trail.selectors import trail_page, trail_unread_counts
from bench import common
from bench.common import percentile
from bench.follows_data import USER_PREFIX, build_follows, remove_bench_users
from bench.trail_rows import busiest_follows, first_reads
from harvest.models import Version

ROOT = Path(__file__).resolve().parent.parent
TARGETS_MS = {"trail": 100, "unread": 20, "preview": 300}
MATCHING_TARGET_SECONDS = 60
READERS_SAMPLED = 30


def day_versions(new: int, revisions: int) -> list[int]:
    firsts = Version.objects.filter(number=1).order_by("-discovered_at", "-id").values_list("id", flat=True)[:new]
    later = Version.objects.filter(number__gt=1).order_by("-discovered_at", "-id").values_list("id", flat=True)
    return [*firsts, *later[:revisions]]


def child_match(new: int, revisions: int) -> dict:
    """The matching task's work for the day (accounts.follow_matching.
    match_versions: every follow definition once, its matches recorded),
    timed in this (child) process."""
    version_ids = day_versions(new, revisions)
    started = time.perf_counter()
    result = match_versions(version_ids=version_ids)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_definitionmatch")
    mark = time.perf_counter()
    index = day_index(version_ids)
    indexed = time.perf_counter() - mark
    kinds = [paper.kind for paper in index.papers]
    return {
        "versions": len(version_ids),
        "papers": len(index.papers),
        "new_papers": kinds.count("new"),
        "revised_papers": kinds.count("revision"),
        "seconds": seconds,
        "index_seconds": indexed,
        "definition_matches": result.hits,
        "saved_papers_cards": result.created + result.updated + result.reopened,
        "peak_rss_mib": round(peak / 1024, 1),
    }


def measure_catch_up(users: list) -> dict:
    """Each sampled reader's first read of the trail after the day (bench.trail_rows)."""
    return first_reads(users)


def _timed(call, arguments: list, runs: int) -> dict:
    first, timings = 0.0, []
    for run in range(runs + 1):
        started = time.perf_counter()
        call(arguments[run % len(arguments)])
        elapsed = (time.perf_counter() - started) * 1000
        if run == 0:
            first = elapsed
        else:
            timings.append(elapsed)
    with CaptureQueriesContext(connection) as queries:
        call(arguments[0])
    return {
        "first_ms": first,
        "p50_ms": percentile(timings, 0.5),
        "p95_ms": percentile(timings, 0.95),
        "max_ms": max(timings),
        "runs": runs,
        "statuses": [200],
        "queries": len(queries),
    }


def sampled_users(count: int) -> list:
    """Readers spread evenly over the bench users."""
    users = list(User.objects.filter(username__startswith=USER_PREFIX).order_by("id"))
    step = max(1, len(users) // count)
    return users[::step][:count]


def readers(users: list) -> list[tuple]:
    """(user, their follow with most unread cards) of these users that have cards."""
    return busiest_follows(users)


def measure_reads(runs: int, picked: list[tuple], previews: list[tuple[str, str, dict]]) -> list[dict]:
    first_pages = {user.pk: trail_page(user=user) for user, _ in picked}
    cursors = [(user, first_pages[user.pk].next_cursor) for user, _ in picked if first_pages[user.pk].next_cursor]
    plan = [
        ("trail: first page", "trail", lambda a: trail_page(user=a[0]), picked),
        ("trail: page 2 (cursor)", "trail", lambda a: trail_page(user=a[0], cursor=a[1]), cursors),
        ("trail: one follow (its busiest)", "trail", lambda a: trail_page(user=a[0], follow_id=a[1]), picked),
        ("trail: kind=revision", "trail", lambda a: trail_page(user=a[0], kind="revision"), picked),
        ("trail: unread only", "trail", lambda a: trail_page(user=a[0], unread_only=True), picked),
        (
            "trail: one follow, unread only",
            "trail",
            lambda a: trail_page(user=a[0], follow_id=a[1], unread_only=True),
            picked,
        ),
        ("unread counts (strip and nav)", "unread", lambda a: trail_unread_counts(user=a[0]), picked),
    ]
    return _measure(plan, runs) + measure_previews(runs, picked[0][0], previews)


def measure_previews(runs: int, user, previews: list[tuple[str, str, dict]]) -> list[dict]:
    plan = [
        (f"preview: {name}", "preview", lambda a, k=kind, v=value: follow_preview(user=a, kind=k, value=v), [user])
        for name, kind, value in previews
    ]
    return _measure(plan, runs)


def _measure(plan: list[tuple], runs: int) -> list[dict]:
    results = []
    for name, group, call, arguments in plan:
        if not arguments:
            continue
        figures = _timed(call, arguments, runs)
        target = TARGETS_MS[group]
        results.append(
            {
                "name": f"follows {name}",
                "group": f"follows-{group}",
                "note": "selectors in process",
                "urls": [],
                "target_p95_ms": target,
                "in_process": figures,
                "meets_target": figures["p95_ms"] <= target,
            }
        )
        print(f"  follows {name}: p95 {figures['p95_ms']:.1f} ms", file=sys.stderr, flush=True)
    return results


def preview_user():
    """The one reader `--previews-only` needs (a preview reads the library, not the reader's rows)."""
    user, _ = User.objects.get_or_create(username=f"{USER_PREFIX}preview", defaults={"email": "preview@bench.invalid"})
    return user


def preview_values(meta: dict) -> list[tuple[str, str, dict]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.name FROM harvest_authorship s JOIN harvest_author a ON a.id = s.author_id "
            "GROUP BY a.name ORDER BY count(*) DESC LIMIT 1"
        )
        prolific = cursor.fetchone()[0]
    tiers = meta["query_tiers"]
    return [
        ("category cs.LG", "category", {"code": "cs.LG"}),
        ("category cs.DB (small)", "category", {"code": "cs.DB"}),
        ("archive cs", "category", {"code": "cs"}),
        ("author (most papers)", "author", {"author": prolific}),
        (f"query {tiers['high']['q']} (rare)", "query", {"q": tiers["high"]["q"]}),
        (f"query {tiers['medium']['q']} (1 %)", "query", {"q": tiers["medium"]["q"]}),
        (f"query {tiers['two_words']['q']}", "query", {"q": tiers["two_words"]["q"]}),
        (f"query {tiers['low']['q']} (least selective)", "query", {"q": tiers["low"]["q"]}),
    ]


def run_follows(url: str, meta: dict, args: argparse.Namespace) -> dict:
    """Build the readers, match the day in a child process, measure the reads;
    after django.setup() on the library's database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('accounts_follow') IS NOT NULL")
        if not cursor.fetchone()[0]:
            raise SystemExit("the bench library predates the follows tables: rebuild it (make bench-data)")
    remove_bench_users()
    with connection.cursor() as cursor:
        # One announcement day's matches: an earlier run's day would double every reader's trail.
        cursor.execute("TRUNCATE accounts_definitionmatch")
    started = time.perf_counter()
    drawn = build_follows(users=args.users, seed=args.follow_seed, library_seed=meta["parameters"]["seed"])
    built = time.perf_counter() - started
    print(
        f"  follows: {drawn.users:,} readers, {sum(drawn.follows.values()):,} follows in {built:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "bench",
        "follows",
        "--child",
        "--new",
        str(args.new),
        "--revisions",
        str(args.revisions),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if done.returncode:
        raise SystemExit(f"matching failed:\n{done.stderr}")
    matching = json.loads(done.stdout.strip().splitlines()[-1])
    matching["meets_target"] = matching["seconds"] <= MATCHING_TARGET_SECONDS
    matching["target_seconds"] = MATCHING_TARGET_SECONDS
    print(
        f"  follows matching: {matching['seconds']:.1f} s, {matching['definition_matches']:,} definition matches",
        file=sys.stderr,
        flush=True,
    )
    users = sampled_users(READERS_SAMPLED)
    catch_up = measure_catch_up(users)
    first_read = (
        f"  follows first read: page p95 {catch_up['with_first_page_p95_ms']:.0f} ms, counts p95 "
        f"{catch_up['catch_up_p95_ms']:.0f} ms, {catch_up['cards_per_reader_mean']:,} cards a reader"
    )
    print(first_read, file=sys.stderr, flush=True)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_readermatch, accounts_trailstate")
        cursor.execute("SELECT pg_total_relation_size('accounts_definitionmatch')")
        matching["definition_matches_mib"] = round(cursor.fetchone()[0] / 2**20, 1)
        cursor.execute("SELECT count(*) FROM accounts_readermatch")
        items = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM accounts_trailstate")
        matches = cursor.fetchone()[0]
        cursor.execute(
            "SELECT pg_total_relation_size('accounts_readermatch') + pg_total_relation_size('accounts_trailstate')"
        )
        size = cursor.fetchone()[0]
    picked = readers(users)
    results = measure_reads(args.follow_runs, picked, preview_values(meta))
    removed = None if args.keep else remove_bench_users()
    return {
        "readers": {
            "users": drawn.users,
            "follows": drawn.follows,
            "exclusions": drawn.exclusions,
            "distinct_definitions": drawn.distinct_definitions,
            "seed": args.follow_seed,
            "build_seconds": round(built, 1),
        },
        "matching": matching,
        "catch_up": catch_up,
        "trail_rows": {"reader_matches": items, "states": matches, "size_mib": round(size / 2**20, 1)},
        "readers_sampled": len(picked),
        "results": results,
        "removed": removed if removed is not None else "kept (--keep)",
    }


def lines(follows: dict) -> list[str]:
    m, rows, c = follows["matching"], follows["trail_rows"], follows["catch_up"]
    verdict = "yes" if m["meets_target"] else "NO"
    return [
        f"follows: {follows['readers']['users']:,} readers, {sum(follows['readers']['follows'].values()):,} follows; "
        f"day of {m['new_papers']:,} new and {m['revised_papers']:,} revised papers matched in {m['seconds']:.1f} s "
        f"(target {m['target_seconds']} s: {verdict}): {m['definition_matches']:,} definition matches "
        f"({m['definition_matches_mib']:,} MiB); index {m['index_seconds']:.1f} s; "
        f"matching process peak RSS {m['peak_rss_mib']} MiB",
        f"a reader's first read after the day: first page p50 {c['with_first_page_p50_ms']:.0f} / p95 "
        f"{c['with_first_page_p95_ms']:.0f} ms, unread counts p50 {c['catch_up_p50_ms']:.0f} / p95 "
        f"{c['catch_up_p95_ms']:.0f} ms, {c['cards_per_reader_mean']:,} unread cards a reader ({c['readers']} readers)",
        f"rows per reader (own matches, states): {rows['reader_matches']:,} + {rows['states']:,}, "
        f"{rows['size_mib']:,} MiB; the day's definition matches {m['definition_matches_mib']:,} MiB",
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--users", type=int, default=10_000, help="bench readers (30 follows each)")
    parser.add_argument("--follow-seed", type=int, default=1)
    parser.add_argument("--follow-runs", type=int, default=30, help="timed runs per trail and preview figure")
    parser.add_argument("--new", type=int, default=1100, help="new papers of the announcement day")
    parser.add_argument("--revisions", type=int, default=1500, help="revisions of the announcement day")
    parser.add_argument("--keep", action="store_true", help="leave the bench readers and their trail in place")
    parser.add_argument(
        "--previews-only",
        action="store_true",
        help="time the follow previews alone (they read the library, not the readers' trail): no readers, "
        "no day matched",
    )


def main(argv: list[str]) -> None:
    parser = common.scale_parser(__doc__, tag="follows")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_match(args.new, args.revisions)))
        return
    url = common.database_url()
    meta = common.required_library(url, args.scale)
    if args.previews_only:
        figures = {"results": measure_previews(args.follow_runs, preview_user(), preview_values(meta))}
        summary = []
    else:
        figures = run_follows(url, meta, args)
        summary = lines(figures)
    common.finish_scale_report(
        args, connection, benchmark="follows at scale", key="follows", figures=figures, summary=summary
    )
