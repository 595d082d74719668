"""The production server for bench/portal.py: gunicorn on loopback, timed over
HTTP, and the peak resident memory of its processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


def peak_rss_mib(pid: int) -> float | None:
    """VmHWM: the peak resident set of a live process."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        return None
    return None


@contextmanager
def gunicorn(env: dict[str, str]):
    """Yields (base URL, master pid); waits until the port accepts connections."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "papertrail.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(WORKERS),
        "--preload",
        "--log-level",
        "warning",
    ]
    server_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=ROOT, env=server_env)
    try:
        deadline = time.monotonic() + 120  # --preload loads the search models before it listens
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("gunicorn did not start") from None
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}", process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)
