"""The recommendations bench, on the bench library (1,000,000 papers):

    python -m bench recommend [--users 10000] [--models 200] [--saves 500] [--runs 30] [--keep]
    (and from `make bench`: bench/portal.py calls run_recommend after the follows bench)

Uses DATABASE_URL (the bench library bench/data.py built; its text is
synthetic, so these are figures of speed and memory only: quality is
measured on real papers by `manage.py recommend --evaluate`). Each figure:

- training: one user with `--saves` saved papers drawn from the library (and
  a tenth as many dismissed trail cards), accounts.recommend.training.train_user
  timed whole (reading the examples, vectorising, fitting, storing), one
  first call then 5 timed ones; target 2 s.
- readers: `--models` users with 30 saves each are trained for real, then
  their stored models are copied to `--users` users in all (a model's size
  is what scoring pays for, not who owns it), with ANALYZE.
- scoring a day: the newest 2,000 first versions and 600 later versions (as
  bench/follows.py's day), accounts.recommend.jobs.score_new_versions in a
  child process (the Celery task's code path), wall time and ru_maxrss (the
  worker's peak memory; target 1 GB); target 5 minutes.
- the page: GET /trail/recommended/ through Django's test client, rotating
  over 30 readers, one first request then `--runs` timed ones; p50 and p95;
  target 100 ms.
- vectors: the bench library has no embeddings; unit vectors drawn at random
  (seeded) are written by COPY for the day's papers, the newest 3,000 (the
  training background) and every saved paper, before training, so that the
  embedding half is trained and scored as live. Random vectors cost what real
  ones do: these are figures of time and memory, not of quality.
- the trail "for you": 30 readers get one card per day's paper (about 2,600,
  as a reader who follows most of cs), then
  accounts.recommend.trail_order.for_you_page (the selector the page and the
  API call: the day's cards, the reader's score sheets, the explanations) for
  the first page, the page after it and unread only; one first call, then
  `--runs` timed ones rotating over the 30; p50 and p95; target 100 ms.
Bench users (names starting "recbench-") are removed first, and at the end
unless --keep. The window is widened (PAPERTRAIL_RECOMMEND_WINDOW_DAYS) so
the library's dates count.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.db import connection
from django.test import Client

from accounts.models import User
from accounts.recommend.jobs import score_new_versions
from accounts.recommend.models import RecommenderModel, RecommenderProfile, ScoreSheet
from accounts.recommend.trail_order import for_you_page
from accounts.recommend.training import train_user
from accounts.records.models import Record
from bench import common
from bench.common import percentile
from bench.follows import day_versions
from bench.trail_rows import dismiss
from bench.vectors import write_vectors
from harvest.models import Paper, Version

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "recbench-"
TRAIN_TARGET_SECONDS = 2.0
SCORE_TARGET_SECONDS = 300
PAGE_TARGET_MS = 100
MEMORY_TARGET_MIB = 1024


def _day_and_background(new: int, revisions: int) -> tuple[list[int], list[int]]:
    day = list(
        dict.fromkeys(Version.objects.filter(pk__in=day_versions(new, revisions)).values_list("paper_id", flat=True))
    )
    newest = list(Paper.objects.order_by("-included_at", "-id").values_list("id", flat=True)[:3000])
    return day, newest


def _clean() -> None:
    ids = list(User.objects.filter(username__startswith=PREFIX).values_list("pk", flat=True))
    with connection.cursor() as cursor:
        for table in (
            "accounts_recommendation",
            "accounts_recommendermodel",
            "accounts_recommenderprofile",
            "accounts_notinterested",
            "accounts_recordtag",
            "accounts_record",
            "accounts_readermatch",
            "accounts_trailstate",
            "accounts_scoresheet",
        ):
            cursor.execute(f"DELETE FROM {table} WHERE user_id = ANY(%s)", [ids])  # noqa: S608 - fixed names
    User.objects.filter(pk__in=ids).delete()


def _saves(user, paper_ids: list[int]) -> None:
    now = datetime.now(UTC)
    Record.objects.bulk_create(
        [Record(user=user, paper_id=pk, saved_at=now - timedelta(days=i % 400)) for i, pk in enumerate(paper_ids)]
    )


def _sample_papers(count: int, rng: random.Random) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id) FROM harvest_paper")
        low, high = cursor.fetchone()
    return rng.sample(range(low, high + 1), count)


def measure_training(saves: int, rng: random.Random) -> dict:
    user = User.objects.create(username=f"{PREFIX}trainer")
    picked = list(Paper.objects.filter(pk__in=_sample_papers(saves * 2, rng)).values_list("pk", "latest_version"))
    write_vectors([pk for pk, _ in picked[: saves + saves // 10]], rng)
    _saves(user, [pk for pk, _ in picked[:saves]])
    dismiss(user, picked[saves : saves + saves // 10])
    started = time.perf_counter()
    train_user(user)
    first = time.perf_counter() - started
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        models = train_user(user)
        timings.append(time.perf_counter() - started)
    model = models[0]
    return {
        "saves": saves,
        "negatives": model.negatives,
        "background": model.background,
        "first_seconds": round(first, 3),
        "median_seconds": round(sorted(timings)[2], 3),
        "max_seconds": round(max(timings), 3),
        "weights_bytes": len(model.weights),
        "embedding_bytes": len(model.embedding),
        "neighbours_bytes": len(model.neighbours),
        "meets_target": max(timings) <= TRAIN_TARGET_SECONDS,
    }


def build_readers(users: int, models: int, rng: random.Random) -> dict:
    started = time.perf_counter()
    trained = []
    now = datetime.now(UTC)
    for index in range(models):
        # Signed in today: scoring after a harvest is for researchers who may read soon.
        user = User.objects.create(username=f"{PREFIX}{index:05d}", last_login=now)
        picked = _sample_papers(30, rng)
        write_vectors(picked, rng)
        _saves(user, picked)
        trained.extend(train_user(user))
    training = time.perf_counter() - started
    clones = []
    for index in range(models, users):
        clones.append(User(username=f"{PREFIX}{index:05d}", last_login=now))
    User.objects.bulk_create(clones, batch_size=2000)
    ids = list(
        User.objects.filter(username__startswith=PREFIX)
        .exclude(username=f"{PREFIX}trainer")
        .order_by("username")
        .values_list("pk", flat=True)
    )
    # Each copy also gets its model's owner's 30 saves, as a reader with that model has.
    saves_of = {}
    for user_id, paper_id in Record.objects.filter(user_id__in=ids[:models]).values_list("user_id", "paper_id"):
        saves_of.setdefault(user_id, []).append(paper_id)
    owners = [row.user_id for row in trained]
    copied = []
    for position, user_id in enumerate(ids[models:]):
        for paper_id in saves_of[owners[position % len(owners)]]:
            copied.append(Record(user_id=user_id, paper_id=paper_id, saved_at=now))
    Record.objects.bulk_create(copied, batch_size=5000)
    rows, profiles = [], []
    for position, user_id in enumerate(ids[models:]):
        source = trained[position % len(trained)]
        rows.append(
            RecommenderModel(
                user_id=user_id,
                trained_at=now,
                positives=source.positives,
                negatives=source.negatives,
                background=source.background,
                weights=source.weights,
                embedding=source.embedding,
                neighbours=source.neighbours,
            )
        )
        profiles.append(RecommenderProfile(user_id=user_id, trained_at=now))
    RecommenderModel.objects.bulk_create(rows, batch_size=500)
    RecommenderProfile.objects.bulk_create(profiles, batch_size=2000)
    with connection.cursor() as cursor:
        for table in ("accounts_user", "accounts_record", "accounts_recommendermodel", "accounts_recommenderprofile"):
            cursor.execute(f"ANALYZE {table}")
    weights = sum(len(m.weights) for m in trained) / len(trained)
    return {
        "users": len(ids),
        "trained": len(trained),
        "training_seconds": round(training, 1),
        "mean_weights_bytes": round(weights),
    }


def child_score(new: int, revisions: int) -> dict:
    version_ids = day_versions(new, revisions)
    started = time.perf_counter()
    summary = score_new_versions(version_ids)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sheets = ScoreSheet.objects.filter(user__username__startswith=PREFIX)
    return {
        "versions": len(version_ids),
        "seconds": round(seconds, 1),
        "summary": summary,
        "peak_rss_mib": round(peak / 1024, 1),
        "sheets": sheets.count(),
    }


def measure_page(runs: int) -> dict:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_recommendation")
    readers = list(
        User.objects.filter(username__startswith=PREFIX).exclude(username=f"{PREFIX}trainer").order_by("?")[:30]
    )
    clients = []
    for user in readers:
        client = Client()
        client.force_login(user)
        clients.append(client)
    started = time.perf_counter()
    response = clients[0].get("/trail/recommended/")
    first = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, response.status_code
    shown = response.content.decode().count("data-recommendation=")
    timings = []
    for run in range(runs):
        started = time.perf_counter()
        clients[run % len(clients)].get("/trail/recommended/")
        timings.append((time.perf_counter() - started) * 1000)
    p95 = percentile(timings, 0.95)
    return {
        "first_ms": round(first, 1),
        "p50_ms": round(percentile(timings, 0.5), 1),
        "p95_ms": round(p95, 1),
        "shown": shown,
        "meets_target": p95 <= PAGE_TARGET_MS,
    }


def give_cards(users: list, papers: list[int]) -> int:
    """One unread trail card per day's paper for each user, at its latest version's arrival, by COPY
    of the reader's own matches."""
    latest = {}
    rows = Version.objects.filter(paper_id__in=papers).order_by("paper_id", "number")
    for paper_id, version_id, number, at in rows.values_list("paper_id", "id", "number", "discovered_at"):
        latest[paper_id] = (version_id, number, at)
    # The reader's own matches stand in for their follows' (the composed trail reads both alike).
    columns = "user_id, paper_id, version_id, version_number, event_at, kind, reason, created_at"
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY accounts_readermatch ({columns}) FROM STDIN") as copy:
            for user in users:
                for paper_id, (version_id, number, at) in latest.items():
                    kind = "new" if number == 1 else "revision"
                    copy.write_row((user.pk, paper_id, version_id, number, at, kind, "{}", at))
        cursor.execute("ANALYZE accounts_readermatch")
    return len(latest) * len(users)


def measure_for_you(runs: int, papers: list[int]) -> dict:
    readers = list(
        User.objects.filter(username__startswith=PREFIX).exclude(username=f"{PREFIX}trainer").order_by("?")[:30]
    )
    cards = give_cards(readers, papers)
    cursors = {user.pk: for_you_page(user=user, size=20).next_cursor for user in readers}
    scored = sum(entry.score is not None for entry in for_you_page(user=readers[0], size=20).entries)
    figures = {"cards": cards, "scored_on_first_page": scored}
    views = {
        "first_page": lambda user: for_you_page(user=user, size=20),
        "page_2": lambda user: for_you_page(user=user, size=20, cursor=cursors[user.pk]),
        "unread_only": lambda user: for_you_page(user=user, size=20, unread_only=True),
    }
    for name, call in views.items():
        started = time.perf_counter()
        call(readers[0])
        first = (time.perf_counter() - started) * 1000
        timings = []
        for run in range(runs):
            started = time.perf_counter()
            call(readers[run % len(readers)])
            timings.append((time.perf_counter() - started) * 1000)
        p95 = percentile(timings, 0.95)
        figures[name] = {
            "first_ms": round(first, 1),
            "p50_ms": round(percentile(timings, 0.5), 1),
            "p95_ms": round(p95, 1),
            "meets_target": p95 <= PAGE_TARGET_MS,
        }
    return figures


def run_recommend(url: str, args: argparse.Namespace) -> dict:
    """The whole bench against the library at `url` (already django.setup())."""
    rng = random.Random(args.rec_seed)
    _clean()
    day, background = _day_and_background(2000, 600)
    vectors = write_vectors([*day, *background], rng)
    training = measure_training(args.rec_saves, rng)
    readers = build_readers(args.rec_users, args.rec_models, rng)
    env = {**os.environ, **common.RECOMMEND_ENV, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "bench", "recommend", "--child-score"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    if done.returncode:
        raise SystemExit(f"the scoring child failed:\n{done.stderr[-4000:]}")
    scoring = json.loads(done.stdout.strip().splitlines()[-1])
    scoring["meets_target"] = scoring["seconds"] <= SCORE_TARGET_SECONDS
    scoring["memory_meets_target"] = scoring["peak_rss_mib"] <= MEMORY_TARGET_MIB
    page = measure_page(args.rec_runs)
    for_you = measure_for_you(args.rec_runs, day)
    if not args.rec_keep:
        _clean()
    return {
        "vectors_written": vectors,
        "training": training,
        "readers": readers,
        "scoring": scoring,
        "page": page,
        "for_you": for_you,
    }


def lines(report: dict) -> list[str]:
    t, s, p = report["training"], report["scoring"], report["page"]
    return [
        f"recommend: training from {t['saves']} saves: median {t['median_seconds']} s, max {t['max_seconds']} s "
        f"(target {TRAIN_TARGET_SECONDS} s) {'ok' if t['meets_target'] else 'MISSED'}",
        f"recommend: scoring {s['versions']} versions for {report['readers']['users']} users: {s['seconds']} s "
        f"(target {SCORE_TARGET_SECONDS} s) {'ok' if s['meets_target'] else 'MISSED'}; {s['summary']}",
        f"recommend: worker peak RSS {s['peak_rss_mib']} MiB (target {MEMORY_TARGET_MIB}) "
        f"{'ok' if s['memory_meets_target'] else 'MISSED'}",
        f"recommend: /trail/recommended/ first {p['first_ms']} ms, p50 {p['p50_ms']} ms, p95 {p['p95_ms']} ms "
        f"(target {PAGE_TARGET_MS} ms, {p['shown']} shown) {'ok' if p['meets_target'] else 'MISSED'}",
        f"recommend: {s.get('sheets', 0)} score sheets written; trail for you over {report['for_you']['cards']} cards "
        f"({report['for_you']['scored_on_first_page']} of the first page scored):",
    ] + [
        f"recommend:   for you, {name.replace('_', ' ')}: first {f['first_ms']} ms, p50 {f['p50_ms']} ms, "
        f"p95 {f['p95_ms']} ms (target {PAGE_TARGET_MS} ms) {'ok' if f['meets_target'] else 'MISSED'}"
        for name, f in report["for_you"].items()
        if isinstance(f, dict)
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rec-users", type=int, default=10_000, help="users with a recommendation model")
    parser.add_argument("--rec-models", type=int, default=200, help="distinct models trained (copied to the rest)")
    parser.add_argument("--rec-saves", type=int, default=500, help="saves of the training bench's user")
    parser.add_argument("--rec-runs", type=int, default=30, help="timed page requests")
    parser.add_argument("--rec-seed", type=int, default=1)
    parser.add_argument("--rec-keep", action="store_true", help="keep the bench users")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--child-score", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--results", default=str(common.RESULTS))
    parser.add_argument("--tag", default="")
    args = parser.parse_args(argv)
    url = common.database_url()
    if args.child_score:
        print(json.dumps(child_score(2000, 600)))
        return

    report = {
        "benchmark": "recommendations",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": common.machine(connection),
        **run_recommend(url, args),
    }
    print("\n".join(lines(report)))
    common.write_report(report, args.results, f"recommend{('-' + args.tag) if args.tag else ''}")
