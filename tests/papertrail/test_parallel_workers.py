"""A parallel run's workers keep their Redis and files apart
(papertrail/settings/test_workers.py), and a worker's subprocess stays with it."""

from __future__ import annotations

from pathlib import Path

from papertrail.settings.test_workers import worker_environment

VAR = Path("/srv/papertrail/var")


def test_outside_a_parallel_run_nothing_moves():
    assert worker_environment({"REDIS_URL": "redis://127.0.0.1:6379/14"}, VAR) == {}


def test_each_worker_has_its_own_redis_database_and_var_directory_none_the_shared_ones():
    shared = {"REDIS_URL": "redis://127.0.0.1:6379/14"}
    first = worker_environment({**shared, "PYTEST_XDIST_WORKER": "gw0"}, VAR)
    second = worker_environment({**shared, "PYTEST_XDIST_WORKER": "gw1"}, VAR)

    assert first["REDIS_URL"] == "redis://127.0.0.1:6379/15"
    assert second["REDIS_URL"] == "redis://127.0.0.1:6379/0"  # past Redis's sixteenth, the first
    assert first["PAPERTRAIL_VAR_DIR"] == str(VAR / "test-gw0")
    assert second["PAPERTRAIL_VAR_DIR"] == str(VAR / "test-gw1")


def test_a_workers_subprocess_inherits_its_place_and_moves_nothing_again():
    worker = {
        "REDIS_URL": "redis://:pw@redis.local:6380/3",
        "PAPERTRAIL_VAR_DIR": "/tmp/v",
        "PYTEST_XDIST_WORKER": "gw2",
    }
    moved = worker_environment(worker, VAR)
    assert moved["REDIS_URL"] == "redis://:pw@redis.local:6380/6"
    assert moved["PAPERTRAIL_VAR_DIR"] == "/tmp/v/test-gw2"

    subprocess = {**worker, **moved}
    assert {**subprocess, **worker_environment(subprocess, VAR)} == subprocess


def test_without_redis_only_the_files_move():
    moved = worker_environment({"PYTEST_XDIST_WORKER": "gw0"}, VAR)
    assert "REDIS_URL" not in moved and moved["PAPERTRAIL_VAR_DIR"] == str(VAR / "test-gw0")
