"""Every benchmark starts here: `python -m bench NAME [its arguments]`, e.g.
`python -m bench portal --scale 1000000` (the Makefile's bench targets).

Django reads its settings once, at django.setup(); a benchmark's settings (the
bench library's database, the API throttles raised, the test client's host)
are therefore put into the environment first, and only then is the
benchmark's module, which imports the project at its top, loaded and run.
"""

from __future__ import annotations

import os
import sys
from importlib import import_module

import django

from bench import common

# Each benchmark: whether it runs on the synthetic library's database
# (DATABASE_URL, PostgreSQL), and the settings it adds to the environment.
BENCHMARKS: dict[str, tuple[bool, dict[str, str]]] = {
    "data": (True, {}),
    "portal": (True, common.BENCH_ENV),
    "follows": (True, common.TEST_CLIENT_ENV),
    "records": (True, common.TEST_CLIENT_ENV),
    "record_files": (True, common.TEST_CLIENT_ENV),
    "alerts": (True, common.TEST_CLIENT_ENV),
    "recommend": (True, common.RECOMMEND_ENV),
    "search": (True, common.BENCH_ENV),
    "loadtest": (True, common.BENCH_ENV),
    # Its own scratch database next to the configured one (PostgreSQL or SQLite).
    "harvest": (False, {}),
    # Its own scratch database (DATABASE_URL as given), made and migrated if missing.
    "channels": (False, {}),
    # A Celery worker on a scratch folder; no database.
    "broker": (False, {}),
    # all-mpnet-base-v2 as int8 ONNX; `quality` stores the collection in DATABASE_URL's library, rolled back.
    "mpnet": (False, {}),
}


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in BENCHMARKS:
        raise SystemExit(f"usage: python -m bench {{{','.join(BENCHMARKS)}}} [arguments]")
    name, arguments = argv[0], argv[1:]
    on_library, environment = BENCHMARKS[name]
    if on_library:
        common.use_database(common.database_url())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "papertrail.settings.test")
    os.environ.update(environment)
    django.setup()
    # The one deferred import: the benchmark's module needs the settings just set.
    import_module(f"bench.{name}").main(arguments)


if __name__ == "__main__":
    main(sys.argv[1:])
