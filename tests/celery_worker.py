"""A real Celery worker on the Redis broker, for integration tests: started in
a subprocess on the test database and stopped (then killed if it lingers)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.conf import settings


@contextmanager
def running_worker(
    env: dict[str, str], *, queues: str, hostname: str, pool: str = "solo", concurrency: int = 1
) -> Iterator[subprocess.Popen]:
    if not settings.REDIS_URL:
        pytest.fail("a Celery integration test needs REDIS_URL (make test sets it)")
    process = subprocess.Popen(
        [
            os.path.join(os.path.dirname(sys.executable), "celery"),
            "-A",
            "papertrail",
            "worker",
            f"--pool={pool}",
            f"--concurrency={concurrency}",
            f"--queues={queues}",
            f"--hostname={hostname}@%h",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
