"""`make loadtest SCALE=100000`: Locust, headless, against gunicorn on loopback
over the bench library (bench/serve.py's server, its 2 sync workers).

    python -m bench loadtest --scale 100000 [--users 50] [--seconds 60]
                             [--steps 1 2 5 10 20 40] [--step-seconds 15]

(a) readers: `--users` simulated people for `--seconds`, each pausing 1 to 5 s
    between actions (bench/locustfile.py's Reader: overview, library with
    filters, full-text queries, paper pages, the API list with a token, the
    signed-in pages); target no error and p95 ≤ 300 ms.
(b) saturation: the same mix without pauses, at each step's number of users
    for `--step-seconds`; the requests a second held with p95 ≤ 300 ms and
    no error, and the last step that held.

Every request goes to 127.0.0.1; each Locust run is bounded in time (and
killed if it outlives its bound). API throttles are raised as in
bench/portal.py: every simulated person shares one address and one token.
Results: bench/results/<date>-loadtest-scale<N>.json, and printed.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.urls import Resolver404, resolve, reverse

from accounts.models import ApiToken
from accounts.services import api_token_create
from bench import common, serve
from bench.portal import pick_inputs
from bench.scenarios import _library_params
from portal.stats.windows import display_zone

ROOT = Path(__file__).resolve().parent.parent
TARGET_P95_MS = 300
LOAD_USERNAME = "bench-load"


def signed_in_urls() -> list[str]:
    """/me/, and /trail/ where this checkout has that page."""
    urls = [reverse("accounts:me")]
    try:
        resolve("/trail/")
    except Resolver404:
        return urls
    return [*urls, "/trail/"]


def load_user() -> tuple[str, str, str]:
    """(API token, session cookie name, session key) of the bench's load user,
    its earlier tokens revoked so that the token limit never stops a run."""
    user, _ = get_user_model().objects.get_or_create(username=LOAD_USERNAME)
    ApiToken.objects.filter(user=user).delete()
    _, token = api_token_create(user=user, name="load test")
    client = Client()
    client.force_login(user)
    return token, settings.SESSION_COOKIE_NAME, client.cookies[settings.SESSION_COOKIE_NAME].value


def config(host: str, meta: dict) -> dict:
    picked = pick_inputs(meta)
    today = datetime.now(UTC).astimezone(display_zone()).date()
    params = _library_params(meta["query_tiers"], (picked["prolific_author"], picked["single_author"]), today)
    token, cookie, session = load_user()
    return {
        "host": host,
        "library_params": [p for _, group, p in params if group == "library"],
        "queries": [tier["q"] for tier in meta["query_tiers"].values()],
        "papers": picked["papers"],
        "token": token,
        "session_cookie": cookie,
        "session": session,
        "signed_in_urls": signed_in_urls(),
    }


def warm_up(settings: dict, rounds: int = 3) -> int:
    """Every URL the mix requests, a few times, untimed: both workers import
    and connect before Locust counts (their first requests take seconds)."""
    urls = [f"/papers/?{urlencode(p)}" for p in settings["library_params"]]
    urls += [f"/api/v1/papers/?{urlencode(p)}" for p in settings["library_params"]]
    urls += ["/", *(f"/papers/?{urlencode({'q': q})}" for q in settings["queries"])]
    urls += [f"/papers/{arxiv_id}/" for arxiv_id in settings["papers"]]
    headers = {"Authorization": f"Bearer {settings['token']}"}
    cookies = {settings["session_cookie"]: settings["session"]}
    done = 0
    for _ in range(rounds):
        for url in [*urls, *settings["signed_in_urls"]]:
            requests.get(settings["host"] + url, headers=headers, cookies=cookies, timeout=60, allow_redirects=False)
            done += 1
    return done


def read_stats(prefix: Path) -> dict:
    """Locust's CSV summary: every request name and the aggregate."""
    rows = {}
    with open(f"{prefix}_stats.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            rows[row["Name"]] = {
                "requests": int(row["Request Count"]),
                "failures": int(row["Failure Count"]),
                "p50_ms": float(row["50%"] or 0),
                "p95_ms": float(row["95%"] or 0),
                "p99_ms": float(row["99%"] or 0),
                "max_ms": float(row["Max Response Time"] or 0),
                "requests_per_second": float(row["Requests/s"] or 0),
            }
    return {"total": rows.pop("Aggregated"), "requests": rows}


def locust(config_path: Path, user_class: str, users: int, seconds: int, out: Path) -> dict:
    prefix = out / f"{user_class}-{users}"
    command = [
        sys.executable,
        "-m",
        "locust",
        "-f",
        str(ROOT / "bench" / "locustfile.py"),
        user_class,
        "--headless",
        "--users",
        str(users),
        "--spawn-rate",
        str(users),
        "--run-time",
        f"{seconds}s",
        "--stop-timeout",
        "5",
        "--csv",
        str(prefix),
        "--only-summary",
        "--exit-code-on-error",
        "0",
        "--loglevel",
        "WARNING",
    ]
    env = {**os.environ, "PAPERTRAIL_LOADTEST_CONFIG": str(config_path)}
    with open(f"{prefix}.log", "w") as log:
        subprocess.run(
            command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=seconds + 60, check=True
        )
    stats = read_stats(prefix)
    total = stats["total"]
    stats["users"] = users
    stats["seconds"] = seconds
    stats["meets_target"] = total["failures"] == 0 and total["p95_ms"] <= TARGET_P95_MS
    return stats


def saturation_point(steps: list[dict]) -> dict | None:
    """The last step, in order, of those that met the target before the first that did not."""
    held = None
    for step in steps:
        if not step["meets_target"]:
            break
        held = step
    return held


def run(args: argparse.Namespace) -> dict:
    url = common.database_url()
    meta = common.library_meta(url)
    if not meta or meta["parameters"]["scale"] != args.scale:
        print(f"building the library of {args.scale:,} papers first", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "bench", "data", "--scale", str(args.scale)], cwd=ROOT, check=True)
        meta = common.library_meta(url)

    machine = common.machine(connection)
    with tempfile.TemporaryDirectory(prefix="pt-loadtest-") as tmp, serve.gunicorn(common.BENCH_ENV) as (base, _):
        out = Path(tmp)
        settings = config(base, meta)
        config_path = out / "config.json"
        config_path.write_text(json.dumps(settings))
        warm_up(settings)
        print(f"(a) {args.users} readers for {args.seconds} s", file=sys.stderr, flush=True)
        readers = locust(config_path, "Reader", args.users, args.seconds, out)
        steps = []
        for users in args.steps:
            print(f"(b) {users} users without pauses for {args.step_seconds} s", file=sys.stderr, flush=True)
            steps.append(locust(config_path, "Saturating", users, args.step_seconds, out))
    machine["load_average_at_end"] = os.getloadavg()
    held = saturation_point(steps)
    return {
        "benchmark": "load test",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "scale": args.scale,
        "server": f"gunicorn, {serve.WORKERS} sync workers, on loopback; Locust on the same machine",
        "target_p95_ms": TARGET_P95_MS,
        "signed_in_urls": settings["signed_in_urls"],
        "readers": readers,
        "saturation_steps": steps,
        "saturation_point": {"users": held["users"], **held["total"]} if held else None,
        "machine": machine,
    }


def table(report: dict) -> str:
    lines = [f"load test at {report['scale']:,} papers ({report['date']}): {report['server']}"]
    r = report["readers"]
    lines.append(
        f"(a) {r['users']} readers (1 to 5 s pauses) for {r['seconds']} s: {r['total']['requests']:,} requests, "
        f"{r['total']['failures']} errors, {r['total']['requests_per_second']:.1f} req/s, "
        f"p50 {r['total']['p50_ms']:.0f} ms, p95 {r['total']['p95_ms']:.0f} ms, p99 {r['total']['p99_ms']:.0f} ms "
        f"(target 0 errors, p95 ≤ {report['target_p95_ms']} ms: {'yes' if r['meets_target'] else 'NO'})"
    )
    for name, row in r["requests"].items():
        lines.append(
            f"      {name[:40]:40} {row['requests']:>6} req {row['failures']:>3} err "
            f"p50 {row['p50_ms']:>5.0f} p95 {row['p95_ms']:>5.0f} ms"
        )
    lines.append("(b) without pauses:")
    for step in report["saturation_steps"]:
        t = step["total"]
        lines.append(
            f"      {step['users']:>3} users: {t['requests_per_second']:>6.1f} req/s, p50 {t['p50_ms']:>5.0f} ms, "
            f"p95 {t['p95_ms']:>5.0f} ms, {t['failures']} errors  {'held' if step['meets_target'] else 'NOT held'}"
        )
    point = report["saturation_point"]
    lines.append(
        f"    saturation point: {point['users']} users, {point['requests_per_second']:.1f} req/s at p95 "
        f"{point['p95_ms']:.0f} ms"
        if point
        else "    saturation point: none of the steps held the target"
    )
    m = report["machine"]
    lines.append(
        f"machine: {m['cpu']}, {m['cores']} cores; load {m['load_average'][0]:.1f} at start, "
        f"{m['load_average_at_end'][0]:.1f} at end"
    )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--steps", type=int, nargs="+", default=[1, 2, 5, 10, 20, 40])
    parser.add_argument("--step-seconds", type=int, default=15)
    parser.add_argument("--results", default=str(common.RESULTS))
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 600 or not 0 < args.step_seconds <= 300 or max(args.users, *args.steps) > 500:
        raise SystemExit("bounded: at most 600 s for (a), 300 s a step, 500 users")
    report = run(args)
    print(table(report))
    common.write_report(report, args.results, f"loadtest-scale{args.scale}")
