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
        ("EMAIL_URL", "pigeon://loft", "EMAIL_URL is not a mail URL"),
        ("EMAIL_URL", "smtp://user:pass@:25", "EMAIL_URL names no host"),
        ("PAPERTRAIL_ACCOUNT_EMAIL_VERIFICATION", "sometimes", "PAPERTRAIL_ACCOUNT_EMAIL_VERIFICATION='sometimes'"),
        ("PAPERTRAIL_SITE_URL", "papertrail.example.org", "PAPERTRAIL_SITE_URL='papertrail.example.org' is not a URL"),
        ("PAPERTRAIL_SIGNUP_OPEN", "perhaps", "PAPERTRAIL_SIGNUP_OPEN='perhaps' is not a boolean"),
    ],
)
def test_bad_values_fail_loudly_at_start(name, value, message):
    finished = manage("check", env={**PRODUCTION, name: value})
    assert finished.returncode != 0
    assert message in finished.stderr


MAIL_SETTINGS = (
    "from django.conf import settings as s; "
    "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, s.EMAIL_HOST_PASSWORD, "
    "s.EMAIL_USE_TLS, s.EMAIL_USE_SSL, s.DEFAULT_FROM_EMAIL, sep='|')"
)


@pytest.mark.parametrize(
    "url, expected",
    [
        (
            "smtp://mailer:se%2Fcret@mail.example.org:25",
            "smtp.EmailBackend|mail.example.org|25|mailer|se/cret|False|False",
        ),
        ("smtp+tls://mailer:pw@mail.example.org:587", "smtp.EmailBackend|mail.example.org|587|mailer|pw|True|False"),
        ("smtp+ssl://mailer:pw@mail.example.org:465", "smtp.EmailBackend|mail.example.org|465|mailer|pw|False|True"),
        ("consolemail://", "console.EmailBackend|localhost|25|||False|False"),
    ],
)
def test_mail_comes_from_email_url(url, expected):
    finished = manage(
        "shell",
        "--no-imports",
        "-c",
        MAIL_SETTINGS,
        env={**PRODUCTION, "EMAIL_URL": url, "DEFAULT_FROM_EMAIL": "研踪 <a@b.org>"},
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.strip() == f"django.core.mail.backends.{expected}|研踪 <a@b.org>"


def test_without_email_url_mail_is_written_to_files_under_var():
    finished = manage(
        "shell",
        "--no-imports",
        "-c",
        "from django.conf import settings as s; print(s.EMAIL_BACKEND, s.EMAIL_FILE_PATH)",
        env=PRODUCTION,
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.split() == [
        "django.core.mail.backends.filebased.EmailBackend",
        "/tmp/papertrail-settings-test/mail",
    ]


SEND_AND_LIST = (
    "import os; from django.conf import settings as s; from papertrail.celery import app; "
    "options = s.CELERY_BROKER_TRANSPORT_OPTIONS; "
    "os.environ.get('SEND') and app.send_task('harvest.index_search', queue='harvest'); "
    "print(s.CELERY_BROKER_TRANSPORT, options['data_folder_in'], options['polling_interval'], "
    "len(os.listdir(options['data_folder_in'])))"
)


def test_each_library_has_its_own_embedded_broker(tmp_path):
    """Without Redis, a task queued for one library's database lands in that
    library's broker folder only: a worker of another library never takes it."""
    first = {**PRODUCTION, "PAPERTRAIL_VAR_DIR": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path}/first.sqlite3"}
    second = {**first, "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/second_library"}

    def shell(env: dict[str, str]) -> list[str]:
        finished = subprocess.run(
            [sys.executable, str(PROJECT_ROOT / "manage.py"), "shell", "--no-imports", "-c", SEND_AND_LIST],
            env={**env, "DJANGO_SETTINGS_MODULE": "papertrail.settings.main"},
            capture_output=True,
            text=True,
            timeout=120,
            cwd=PROJECT_ROOT,
        )
        assert finished.returncode == 0, finished.stderr
        return finished.stdout.split()

    ours = "papertrail.file_broker:Transport"
    assert shell({**first, "SEND": "1"}) == [ours, f"{tmp_path}/celery-broker/first.sqlite3/in", "0.1", "1"]
    assert shell(second) == [ours, f"{tmp_path}/celery-broker/second_library/in", "0.1", "0"]
    assert shell(first)[3] == "1"


STARTED_MODULES = (
    "import sys; from django.urls import get_resolver; from papertrail.celery import app; "
    "get_resolver().url_patterns; app.loader.import_default_modules(); "
    "print(*sorted({name.partition('.')[0] for name in sys.modules} & {'anthropic', 'openai'}))"
)


def test_the_site_and_the_worker_start_without_the_llm_sdks():
    """They are imported when first used (digests/providers/registry.py): at
    start they cost every process about a second and a half of CPU,
    manage.py's commands and the suite's workers too."""
    finished = manage("shell", "--no-imports", "-c", STARTED_MODULES, env=PRODUCTION)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.split() == []
