"""The channels bench: one period's chat messages for N researchers with a
channel each and M lab groups with a group channel, sent by one process to a
local stand-in that answers at once; then the same period again with the
sending process killed mid-run and restarted, counting what the stand-in
received against the `ChannelSend` rows (nothing may arrive twice).

    python -m bench channels [--researchers 10000] [--groups 1000] [--kill-after 0.5]

Runs on the database DATABASE_URL names, which must be a scratch one whose name
holds "bench" (made and migrated if missing; the bench deletes every channel,
group and follow in it). How each figure is taken:

- data: researchers (bulk-created users, one daily channel each, sealed
  secrets) following cs.LG, the groups' owners drawn from them, each group
  following cs.LG, and 12 cs.LG papers harvested and matched (the real
  harvest and matcher) three hours before the run's clock.
- send: `send_channels` (the beat task's code path) in a child process
  (`--child`), wall time and ru_maxrss; every channel is due (daily, 08:00
  UTC passed).
- once: the period's messages forgotten, the child started again and killed
  (SIGKILL) by the stand-in itself when the message that makes `--kill-after`
  of them arrives, before it answers: the worst moment, a request in flight
  whose sender never learns it arrived. A second child runs after the claim
  lease (its clock CHANNEL_CLAIM_LEASE_SECONDS later) and finishes. Received
  messages are counted per channel path: none may arrive twice, and none
  should be missing (the one in flight arrived, and is not sent again).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psycopg
from django.conf import settings
from django.core.management import call_command

from accounts.channels.models import Channel, ChannelSend
from accounts.channels.secrets import seal
from accounts.channels.sending import send_channels
from accounts.follows.models import Follow
from accounts.follows.services import follow_create
from accounts.groups.models import LabGroup
from accounts.groups.services import group_create
from accounts.models import User
from accounts.trail.matching import match_versions
from bench.common import database_name, maintenance_url, psycopg_url
from harvest.services import paper_upsert_many
from tests.factories import record, stored_dated

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 300
# The run's clock: 10:00 UTC on a fixed day (daily channels of UTC owners are due).
NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


class StandIn(BaseHTTPRequestHandler):
    received: Counter = Counter()
    lock = threading.Lock()
    # (process id, count): the sender to kill when the count-th message arrives, before it is answered.
    kill: tuple[int, int] | None = None

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.lock:
            self.received[self.path] += 1
            if self.kill is not None and sum(self.received.values()) >= self.kill[1]:
                os.kill(self.kill[0], signal.SIGKILL)
                StandIn.kill = None
                return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args) -> None:
        return


def _scratch_url() -> str:
    return os.environ["DATABASE_URL"]


def ensure_database(url: str) -> None:

    name = database_name(url)
    with psycopg.connect(psycopg_url(maintenance_url(url)), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    call_command("migrate", verbosity=0)


def build(researchers: int, groups: int, port: int) -> dict:

    started = time.perf_counter()
    ChannelSend.objects.all().delete()
    Channel.objects.all().delete()
    LabGroup.objects.all().delete()
    Follow.objects.all().delete()
    User.objects.filter(username__startswith="bench-ch-").delete()
    users = User.objects.bulk_create(
        [User(username=f"bench-ch-{i}", language="en", time_zone="UTC") for i in range(researchers)],
        batch_size=2000,
    )
    users = list(User.objects.filter(username__startswith="bench-ch-").order_by("pk"))
    for user in users:  # each through the service: a follow's matching state is the service's to set
        follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="Learning", now=NOW - timedelta(days=1))
    group_ids = []
    for i in range(groups):
        group = group_create(owner=users[i % researchers], name=f"Lab {i}")
        follow_create(
            group_id=group.pk, kind="category", value={"code": "cs.LG"}, name="Learning", now=NOW - timedelta(days=1)
        )
        group_ids.append(group.pk)
    papers = [record(f"2611.{n:05d}", title=f"Paper {n}", categories=["cs.LG"]) for n in range(1, 13)]
    result = paper_upsert_many(records=stored_dated(papers, NOW - timedelta(hours=3)), now=NOW - timedelta(hours=3))
    match_versions(version_ids=result.created_version_ids)
    base = f"http://127.0.0.1:{port}"
    rows = [
        Channel(
            user_id=user.pk,
            kind="webhook",
            name="bench",
            secret_encrypted=seal({"url": f"{base}/u/{user.pk}"}),
            target_host="127.0.0.1",
            rhythm="daily",
        )
        for user in users
    ] + [
        Channel(
            group_id=group_id,
            kind="webhook",
            name="bench",
            secret_encrypted=seal({"url": f"{base}/g/{group_id}"}),
            target_host="127.0.0.1",
            rhythm="daily",
        )
        for group_id in group_ids
    ]
    Channel.objects.bulk_create(rows, batch_size=2000)
    return {"channels": len(rows), "build_seconds": round(time.perf_counter() - started, 1)}


def child(now: str) -> None:

    started = time.perf_counter()
    run = send_channels(now=datetime.fromisoformat(now))
    print(
        json.dumps(
            {
                "seconds": round(time.perf_counter() - started, 1),
                "sent": run.sent,
                "empty": run.empty,
                "skipped": run.skipped,
                "failed": run.failed,
                "retry": run.retry,
                "deferred": run.deferred,
                "interrupted": run.interrupted,
                "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            }
        )
    )


def _start_child(now: datetime, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bench", "channels", "--child", now.isoformat()],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def _outcome(process: subprocess.Popen) -> dict:
    return json.loads(process.communicate()[0].strip().splitlines()[-1])


def run(researchers: int, groups: int, kill_after: float, env: dict[str, str] | None = None) -> dict:
    """The bench on the configured database (`env`: the children's environment, by default this one's)."""
    env = env or os.environ.copy()
    StandIn.received.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        built = build(researchers, groups, server.server_address[1])
        print(f"built {built}", flush=True)
        timed = _outcome(_start_child(NOW, env))
        timed["per_second"] = round(timed["sent"] / max(timed["seconds"], 0.1), 1)
        first_received = sum(StandIn.received.values())
        print(f"send {timed}, stand-in received {first_received}", flush=True)
        # Again, killed with a message in flight and restarted after the lease.
        ChannelSend.objects.all().delete()
        StandIn.received.clear()
        process = _start_child(NOW, env)
        StandIn.kill = (process.pid, max(1, int(built["channels"] * kill_after)))
        process.wait()
        StandIn.kill = None
        at_kill = sum(StandIn.received.values())
        restart = _outcome(_start_child(NOW + timedelta(seconds=settings.CHANNEL_CLAIM_LEASE_SECONDS + 1), env))
    finally:
        server.shutdown()
        server.server_close()
    once = {
        "killed_after_received": at_kill,
        "killed_by_signal": process.returncode == -signal.SIGKILL,
        "restart": restart,
        "received": sum(StandIn.received.values()),
        "channels_reached": len(StandIn.received),
        "channels_missed": built["channels"] - len(StandIn.received),
        "sent_rows": ChannelSend.objects.filter(status="sent").count(),
        "received_twice": sum(1 for count in StandIn.received.values() if count > 1),
        "statuses": dict(Counter(ChannelSend.objects.values_list("status", flat=True))),
    }
    print(f"once {once}", flush=True)
    return {"built": built, "send": timed, "first_received": first_received, "once": once}


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench channels")
    parser.add_argument("--researchers", type=int, default=10_000)
    parser.add_argument("--groups", type=int, default=1_000)
    parser.add_argument("--kill-after", type=float, default=0.5, help="the share received at the kill")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return
    if "bench" not in database_name(_scratch_url()):
        raise SystemExit("give DATABASE_URL a scratch database whose name holds 'bench': the bench empties it")
    ensure_database(_scratch_url())
    print(json.dumps(run(args.researchers, args.groups, args.kill_after)))
