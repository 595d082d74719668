"""`make bench-broker`: how long a task waits in the embedded file broker
(`make run` without Redis), and what its polling costs while the worker idles.

    python -m bench broker [--poll 0.1 --poll 1.0] [--hops 20] [--idle 30]

For each polling interval, a real Celery worker (`make run`'s queues, two processes) runs
on a scratch folder with the options `make run` uses
(papertrail.libraries.file_broker_options); a task that queues the next one
hops `--hops` times from queue to queue, as a harvest page's follow-up tasks do, and each hop's
wait is read from the times the tasks ran. Then the worker idles for `--idle`
seconds and its CPU time over that span is read from /proc.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from celery import Celery
from kombu import Connection

from papertrail.libraries import file_broker_options

_VAR = os.environ.get("BENCH_BROKER_VAR")
app = Celery("bench_broker")
if _VAR:
    app.conf.broker_url = "filesystem://"
    app.conf.broker_transport_options = file_broker_options(
        Path(_VAR), "bench", poll_seconds=float(os.environ["BENCH_BROKER_POLL"])
    )

# The queues `make run`'s worker consumes; each hop goes to the next one.
QUEUES = ("harvest", "llm", "default", "embed")


@app.task(name="bench.hop")
def hop(remaining: int, times_file: str) -> None:
    with open(times_file, "a") as times:
        times.write(f"{time.time()}\n")
    if remaining > 0:
        hop.apply_async((remaining - 1, times_file), queue=QUEUES[remaining % len(QUEUES)])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(poll: float, hops: int, idle: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-broker-") as scratch:
        env = dict(os.environ, BENCH_BROKER_VAR=scratch, BENCH_BROKER_POLL=str(poll))
        log = Path(scratch) / "worker.log"
        command = [sys.executable, "-m", "celery", "-A", "bench.broker", "worker", "-Q", ",".join(QUEUES), "-c", "2"]
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=INFO"]
        with open(log, "w") as output:
            worker = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            _until(lambda: "ready." in log.read_text(), what="worker ready")
            times_file = Path(scratch) / "times"
            options = file_broker_options(Path(scratch), "bench", poll_seconds=poll)
            with Connection("filesystem://", transport_options=options) as connection:
                sent = time.time()
                hop.apply_async((hops, str(times_file)), connection=connection, queue=QUEUES[0])
            _until(lambda: times_file.exists() and len(times_file.read_text().split()) > hops, what="the hops")
            times = [sent] + [float(line) for line in times_file.read_text().split()]
            waits = [b - a for a, b in itertools.pairwise(times)]
            before = _cpu_seconds(worker.pid)
            time.sleep(idle)  # the span over which idle CPU is measured, not a wait for anything
            idle_share = (_cpu_seconds(worker.pid) - before) / idle
        finally:
            worker.terminate()
            worker.wait(timeout=30)
    return {
        "poll_seconds": poll,
        "hop_median_ms": statistics.median(waits) * 1000,
        "hop_max_ms": max(waits) * 1000,
        "idle_cpu_percent": idle_share * 100,
    }


def _until(condition, *, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench.broker: no {what} within {timeout:.0f} s")
        time.sleep(0.05)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--poll", type=float, action="append", help="polling interval(s) in seconds")
    parser.add_argument("--hops", type=int, default=20)
    parser.add_argument("--idle", type=float, default=30.0)
    args = parser.parse_args(argv)
    print("| poll (s) | wait per hop, median (ms) | max (ms) | worker CPU while idle (% of a core) |")
    print("| ---: | ---: | ---: | ---: |")
    for poll in args.poll or [0.1, 1.0]:
        row = measure(poll, args.hops, args.idle)
        print(
            f"| {row['poll_seconds']:g} | {row['hop_median_ms']:.0f} | {row['hop_max_ms']:.0f} "
            f"| {row['idle_cpu_percent']:.2f} |"
        )
