import os
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.digests.ask_library import fake_llm as ask_fake_llm
from tests.replay_server import ReplayServer
from tests.smtp_server import Inbox, SmtpServer

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# --clock and the `on_a_listing_day` fixture (tests/clock.py); `make run` through the session (tests/front_door.py).
pytest_plugins = ["tests.clock", "tests.front_door"]


@pytest.fixture
def replay_server() -> Iterator[ReplayServer]:
    """A local HTTP server replaying recorded responses (tests/fixtures/)."""
    server = ReplayServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def mailbox(settings) -> Iterator[Inbox]:
    """A real SMTP server on a free local port, and Django's SMTP backend
    pointed at it: mails go over the wire and land in the returned inbox."""
    server = SmtpServer().start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = server.port
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    try:
        yield server.inbox
    finally:
        server.stop()


def database_url_of_current_connection() -> str:
    """The DATABASE_URL of the database this test runs on (the test database),
    for subprocesses that must see the same data."""
    from django.db import connection

    conf = connection.settings_dict
    if conf["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{conf['NAME']}"
    user = quote(conf.get("USER") or "")
    password = quote(conf.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    return f"postgres://{auth}{conf.get('HOST') or ''}:{conf.get('PORT') or 5432}/{conf['NAME']}"


@pytest.fixture
def subprocess_env(subprocess_clock: dict[str, str]) -> dict[str, str]:
    """Environment for a manage.py or Celery subprocess on the test database,
    on the test's clock. Use with a transactional test (django_db(transaction=True))
    so the data is committed and visible to the subprocess."""
    env = dict(os.environ)
    env["DATABASE_URL"] = database_url_of_current_connection()
    env["DJANGO_SETTINGS_MODULE"] = "papertrail.settings.test"
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(subprocess_clock)
    return env


@pytest.fixture
def manage_py() -> list[str]:
    return [sys.executable, str(PROJECT_ROOT / "manage.py")]


@pytest.fixture
def fake_llm(settings, monkeypatch):
    """The local stand-in for the Anthropic API, answering questions to the
    library with citations of the papers it was given (tests/digests/ask_library.py)."""
    with ask_fake_llm(settings, monkeypatch) as server:
        yield server
