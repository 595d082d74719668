"""Where each worker of a parallel test run (pytest-xdist) keeps its state.

pytest-django gives each worker its own test database; the worker also needs
its own Redis database and var directory, so that a Celery worker started by
one does not take the other's tasks, nor one's cache.clear() empty the other's
cache. Read by papertrail/settings/test.py before the settings are built."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16


def own_redis_database(url: str, worker: int) -> str:
    """The Redis URL of worker `worker` (gw0 is 0): the database `worker` + 1 up
    from `url`'s, wrapping at Redis's 16, so that a session running beside the
    workers on `url` itself (`make test`'s calendar runs) meets neither."""
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(database + worker + 1) % REDIS_DATABASES}"))


def worker_environment(environ: Mapping[str, str], default_var_dir: Path) -> dict[str, str]:
    """The variables to set for this process if it is a parallel worker (nothing otherwise).

    The shared values are kept under names of their own the first time, so that
    a subprocess, which inherits the worker's name and the moved values, moves
    nothing twice."""
    worker = environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return {}
    index = int(worker.removeprefix("gw"))
    shared_var = (
        environ.get("PAPERTRAIL_TEST_SHARED_VAR_DIR") or environ.get("PAPERTRAIL_VAR_DIR") or str(default_var_dir)
    )
    moved = {
        "PAPERTRAIL_TEST_SHARED_VAR_DIR": shared_var,
        "PAPERTRAIL_VAR_DIR": str(Path(shared_var) / f"test-{worker}"),
    }
    shared_redis = environ.get("PAPERTRAIL_TEST_SHARED_REDIS_URL") or environ.get("REDIS_URL")
    if shared_redis:
        moved["PAPERTRAIL_TEST_SHARED_REDIS_URL"] = shared_redis
        moved["REDIS_URL"] = own_redis_database(shared_redis, index)
    return moved
