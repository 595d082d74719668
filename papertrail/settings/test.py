"""Test settings: the settings PaperTrail runs with (main.py), with a test-only secret and no politeness delay.

The database and Redis still come from DATABASE_URL / REDIS_URL, so CI runs the
suite on the real PostgreSQL and Redis servers.
"""

import os
from pathlib import Path

from papertrail.settings.test_workers import worker_environment

os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-secret-key-not-for-production")
os.environ.setdefault("ARXIV_REQUEST_DELAY", "0")
os.environ.setdefault("PAPERTRAIL_HTTP_BACKOFF_BASE", "0")
os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "0")
# Third-party secrets (a Zotero API key, a chat channel's webhook) are encrypted with a test-only key.
os.environ.setdefault("PAPERTRAIL_SECRET_KEYS", "HtYQgYX0ofYeUGO_UPcWUYLqHhxnyVyMw_TopTBgBMY=")
# Tests create the sources they need; rows made by `migrate` would clash.
os.environ.setdefault("PAPERTRAIL_CREATE_SOURCES", "0")
# A worker of a parallel run keeps its Redis and files apart (settings/test_workers.py).
os.environ.update(worker_environment(os.environ, Path(__file__).resolve().parents[2] / "var"))

from papertrail.settings.base import DATABASES, VAR_DIR
from papertrail.settings.main import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Serve static files from the apps' folders, without a collectstatic step.
WHITENOISE_USE_FINDERS = True
STATIC_ROOT.mkdir(exist_ok=True)  # noqa: F405 - whitenoise warns about a missing root

# A subprocess of a test that runs on a shifted clock (tests/clock.py: a
# Celery worker, a manage.py command) travels by the same shift, so that the
# test and the subprocess agree on what time it is.
if _clock_shift := os.environ.get("PAPERTRAIL_TEST_CLOCK_SHIFT"):
    from datetime import UTC, datetime, timedelta

    import time_machine

    time_machine.travel(datetime.now(UTC) + timedelta(seconds=float(_clock_shift)), tick=True).start()

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so that subprocesses (a killed harvest, a Celery
    # worker) see the same test database as the test itself.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-papertrail.sqlite3")}

# Tests post to a local stand-in (tests/replay_server.py), not to the providers' hosts.
CHANNEL_ANY_HOST = True
