"""Settings come from the environment, fail loudly on bad values, and are
production-safe by default."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

PRODUCTION = {
    "DJANGO_SECRET_KEY": "a-long-random-production-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
    "DJANGO_ALLOWED_HOSTS": "papertrail.example.org",
    "PATH": "/usr/bin:/bin",
}


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "manage.py"), *args],
        env={
            **env,
            "DJANGO_SETTINGS_MODULE": "papertrail.settings.main",
            "PAPERTRAIL_VAR_DIR": "/tmp/papertrail-settings-test",
        },
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PROJECT_ROOT,
    )


def test_deploy_check_is_clean_with_production_settings():
    finished = manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION)
    assert finished.returncode == 0, finished.stderr
    assert "System check identified no issues" in finished.stdout


def test_debug_is_off_and_a_secret_is_required_unless_debug_is_asked_for():
    finished = manage("check", env={"PATH": "/usr/bin:/bin"})
    assert finished.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off" in finished.stderr


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("DJANGO_DEBUG", "maybe", "DJANGO_DEBUG='maybe' is not a boolean"),
        ("ARXIV_REQUEST_DELAY", "soon", "ARXIV_REQUEST_DELAY='soon' is not a number"),
        ("ARXIV_REQUEST_DELAY", "-1", "ARXIV_REQUEST_DELAY=-1.0 is below the minimum 0.0"),
        ("ARXIV_OAI_URL", "oaipmh.arxiv.org/oai", "ARXIV_OAI_URL='oaipmh.arxiv.org/oai' is not a URL"),
        ("DATABASE_URL", "mysql://x@y/z", "only PostgreSQL and SQLite are supported"),
        ("PAPERTRAIL_CRON_ARXIV", "every hour", "is not a five-field cron expression"),
        ("PAPERTRAIL_ARXIV_HOLIDAYS", "2026-12-24,Christmas", "PAPERTRAIL_ARXIV_HOLIDAYS: 'Christmas' is not a date"),
    ],
)
def test_bad_values_fail_loudly_at_start(name, value, message):
    finished = manage("check", env={**PRODUCTION, name: value})
    assert finished.returncode != 0
    assert message in finished.stderr
