"""The alerts bench: one announcement day's daily alerts for 10,000 readers
built and handed to a local SMTP server, and the private Atom feed, on the
bench library.

    python -m bench alerts --scale 1000000 [--alert-users 10000] [--feed-runs 30] [--keep]
    (and from `make bench`: bench/portal.py calls run_alerts after the follows bench)

Uses DATABASE_URL (the bench library bench/data.py built). How each figure is taken:

- readers: bench/alerts_data.py draws them from `--alert-seed` and writes
  them, their follows and the day's trail by COPY, then ANALYZE (autovacuum
  is off on the bench server); earlier bench readers are removed first, and
  all of them at the end unless `--keep`.
- alerts: `send_alerts` for the daily frequency (accounts.alerts, the task's
  and the command's code path) in a child process, its mails handed over
  SMTP to aiosmtpd's Sink (accepts and drops) in another process on
  loopback; wall time of the whole run and ru_maxrss of the child. It runs
  twice, first for the first tenth of the readers, then (their alerts
  removed) for all of them: memory flat in the number of users means the
  two peaks are about equal.
- feeds: the whole trail's feed and one follow's feed of `--feed-runs`
  readers through the Django test client in process (URL resolution,
  middleware, the view, the syndication framework), one first request and
  the timed ones; p50 and p95; and a conditional GET answered 304.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.alerts.links import feed_links, feed_secret_rotate
from accounts.alerts.sending import send_alerts
from accounts.models import User
from bench import common
from bench.alerts_data import USER_PREFIX, Built, build_readers, remove_readers
from bench.common import percentile
from harvest.completeness import latest_expected_announcement, listing_day
from tests.smtp_server import free_port

ROOT = Path(__file__).resolve().parent.parent
SEND_TARGET_SECONDS = 300
FEED_TARGET_MS = 50


def _listing_day():
    return listing_day(latest_expected_announcement())


def child_send(limit: int | None) -> dict:
    """The daily alerts of the day, timed in this (child) process."""
    names = [f"{USER_PREFIX}{number:06d}" for number in range(limit)] if limit else None
    started = time.perf_counter()
    run = send_alerts(frequency="daily", day=_listing_day(), usernames=names)
    seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), coalesce(sum(item_count), 0) FROM accounts_alertmail WHERE status = 'sent'")
        mails, papers = cursor.fetchone()
    return {
        "users": run.users,
        "sent": run.sent,
        "empty": run.empty,
        "failed": run.failed,
        "retry": run.retry,
        "papers": run.papers,
        "mails_recorded_sent": mails,
        "papers_recorded": papers,
        "seconds": round(seconds, 1),
        "per_mail_ms": round(1000 * seconds / max(1, run.sent), 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "reason": run.reason,
    }


def _sink() -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-c", "aiosmtpd.handlers.Sink", "-l", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process, port
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("the SMTP sink did not start") from None
            time.sleep(0.1)


def _send_in_child(url: str, port: int, limit: int | None) -> dict:
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT), "EMAIL_URL": f"smtp://127.0.0.1:{port}"}
    command = [sys.executable, "-m", "bench", "alerts", "--child"]
    if limit:
        command += ["--child-limit", str(limit)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if done.returncode:
        raise SystemExit(f"sending failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _forget_alerts() -> None:
    pattern = USER_PREFIX.replace("-", "\\-") + "%"
    with connection.cursor() as cursor:
        for table in ("accounts_alertmailitem", "accounts_alertmail"):
            cursor.execute(
                f"DELETE FROM {table} WHERE user_id IN (SELECT id FROM accounts_user WHERE username LIKE %s)",  # noqa: S608
                [pattern],
            )


def _timed(client, urls: list[str], headers: dict | None = None) -> dict:
    first = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(urls[0], headers=headers or {}).status_code in (200, 304)
    first_ms = 1000 * (time.perf_counter() - first)
    times, statuses = [], set()
    for url in urls:
        started = time.perf_counter()
        response = client.get(url, headers=headers or {})
        times.append(1000 * (time.perf_counter() - started))
        statuses.add(response.status_code)
    return {
        "first_ms": round(first_ms, 1),
        "p50_ms": round(percentile(times, 0.5), 1),
        "p95_ms": round(percentile(times, 0.95), 1),
        "runs": len(times),
        "statuses": sorted(statuses),
        "queries": len(queries),
    }


def measure_feeds(runs: int) -> list[dict]:
    users = list(User.objects.filter(username__startswith=USER_PREFIX).order_by("id")[:: max(1, 10_000 // runs)][:runs])
    if not users:
        raise SystemExit("the alerts bench has no readers to read feeds for: give --alert-users 1 or more")
    trail, follow = [], []
    for user in users:
        # Readers are written around the ORM and get their settings, with the
        # feed's secret, only when an alert is sent: a small library sends none.
        links = feed_links(user=user)
        if not links:
            feed_secret_rotate(user=user)
            links = feed_links(user=user)
        if len(links) < 2:
            raise SystemExit(f"the bench reader {user.username} has no follow, so no follow's feed to time")
        trail.append(links[0].url.split("://", 1)[1].split("/", 1)[1])
        follow.append(links[1].url.split("://", 1)[1].split("/", 1)[1])
    trail = ["/" + path for path in trail]
    follow = ["/" + path for path in follow]
    client = Client()
    etags = [client.get(url)["ETag"] for url in trail[:1]]
    results = []
    for name, urls, headers in (
        ("feed: whole trail, 50 entries", trail, None),
        ("feed: one follow", follow, None),
        ("feed: conditional GET (304)", trail[:1] * len(trail), {"If-None-Match": etags[0]}),
    ):
        figures = _timed(client, urls, headers)
        results.append(
            {
                "name": name,
                "group": "alerts-feed",
                "note": "test client in process",
                "in_process": figures,
                "target_p95_ms": FEED_TARGET_MS,
                "meets_target": figures["p95_ms"] <= FEED_TARGET_MS,
            }
        )
    return results


def existing_readers(users: int):
    """The readers a `--keep` run left, if there are `users` of them (the
    seed is the caller's word)."""
    pattern = USER_PREFIX.replace("-", "\\-") + "%"
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id), count(*) FROM accounts_user WHERE username LIKE %s", [pattern])
        low, high, count = cursor.fetchone()
        if count != users:
            return None
        found = Built(users=count)
        for table, attribute in (
            ("accounts_follow", "follows"),
            ("accounts_readermatch", "matches"),
        ):
            cursor.execute(f"SELECT count(*) FROM {table} WHERE user_id BETWEEN %s AND %s", [low, high])  # noqa: S608
            setattr(found, attribute, cursor.fetchone()[0])
    return found


def run_alerts(url: str, args: argparse.Namespace) -> dict:
    """Build the readers, send the day's alerts in a child process (twice),
    time the feeds; after django.setup() on the library's database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('accounts_alertmail') IS NOT NULL")
        if not cursor.fetchone()[0]:
            raise SystemExit("the bench library predates the alerts tables: run migrate on it")
    started = time.perf_counter()
    built = existing_readers(args.alert_users) if getattr(args, "reuse_readers", False) else None
    if built is None:
        remove_readers()
        built = build_readers(users=args.alert_users, seed=args.alert_seed)
    else:
        _forget_alerts()
    build_seconds = time.perf_counter() - started
    print(
        f"  alerts: {built.users:,} readers, {built.follows:,} follows, {built.items:,} cards, "
        f"{built.matches:,} matches in {build_seconds:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    sink, port = _sink()
    try:
        tenth = _send_in_child(url, port, max(1, args.alert_users // 10))
        print(f"  alerts: {tenth['sent']:,} alerts in {tenth['seconds']} s", file=sys.stderr, flush=True)
        _forget_alerts()
        full = _send_in_child(url, port, None)
        print(f"  alerts: {full['sent']:,} alerts in {full['seconds']} s", file=sys.stderr, flush=True)
    finally:
        sink.terminate()
        sink.wait(timeout=30)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_alertmail, accounts_alertmailitem, accounts_alertsettings")
    full["meets_target"] = full["seconds"] <= SEND_TARGET_SECONDS
    full["target_seconds"] = SEND_TARGET_SECONDS
    feeds = measure_feeds(args.feed_runs)
    removed = None if args.keep else remove_readers()
    return {
        "readers": {
            "users": built.users,
            "follows": built.follows,
            "cards": built.items,
            "matches": built.matches,
            "daily_matches": built.daily_matches,
            "seed": args.alert_seed,
            "build_seconds": round(build_seconds, 1),
        },
        "send_tenth": tenth,
        "send": full,
        "results": feeds,
        "removed": removed if removed is not None else "kept (--keep)",
    }


def lines(alerts: dict) -> list[str]:
    s, t = alerts["send"], alerts["send_tenth"]
    verdict = "yes" if s["meets_target"] else "NO"
    return [
        f"alerts: {alerts['readers']['users']:,} readers, {alerts['readers']['follows']:,} follows; daily alerts of "
        f"one day: {s['sent']:,} mails, {s['papers']:,} papers, built and handed to SMTP in {s['seconds']} s "
        f"(target {s['target_seconds']} s: {verdict}), {s['per_mail_ms']} ms a mail; peak RSS {s['peak_rss_mib']} MiB "
        f"(a tenth of the readers: {t['sent']:,} mails in {t['seconds']} s, peak RSS {t['peak_rss_mib']} MiB)",
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--alert-users", type=int, default=10_000, help="bench readers of the alerts bench")
    parser.add_argument("--alert-seed", type=int, default=1)
    parser.add_argument("--feed-runs", type=int, default=30, help="timed feed requests per figure")


def main(argv: list[str]) -> None:
    parser = common.scale_parser(__doc__, tag="alerts")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-limit", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--keep", action="store_true", help="leave the bench readers and their rows in place")
    parser.add_argument(
        "--reuse-readers", action="store_true", help="use the readers a --keep run left (same --alert-users)"
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_send(args.child_limit or None)))
        return
    url = common.database_url()
    common.required_library(url, args.scale)
    figures = run_alerts(url, args)
    common.finish_scale_report(
        args, connection, benchmark="alerts at scale", key="alerts", figures=figures, summary=lines(figures)
    )
