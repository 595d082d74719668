"""The deployment: /healthz names each dependency's state (and no secret), and
docker-compose migrates once, before web, worker and beat start, with a health
check for every service; the image runs as an unprivileged user."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest
import yaml

from tests.conftest import PROJECT_ROOT

APP_SERVICES = ("web", "worker", "beat")


@pytest.mark.django_db
def test_healthz_says_every_dependency_is_up(client, settings):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "up", "cache": "up", "broker": "up"}
    assert response["Cache-Control"].startswith("max-age=0")
    text = response.content.decode()
    for secret in ("postgres://", "redis://", settings.SECRET_KEY):
        assert secret not in text


@pytest.mark.django_db
def test_healthz_is_degraded_not_down_while_redis_is_unreachable(client, settings):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    settings.CACHES = {
        "default": {
            "BACKEND": "papertrail.cache.ResilientRedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed}/0",
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["status"] == "degraded"
    assert response.json()["cache"] == "down" and response.json()["database"] == "up"


def compose() -> dict:
    return yaml.safe_load((PROJECT_ROOT / "docker-compose.yml").read_text())


def test_compose_migrates_once_before_the_app_starts():
    services = compose()["services"]
    migrate = services["migrate"]
    assert "manage.py migrate" in migrate["command"] and migrate["restart"] == "no"
    for name in APP_SERVICES:
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert "migrate" not in services[name]["command"]


def test_compose_checks_the_health_of_every_long_running_service():
    services = compose()["services"]
    for name in (*APP_SERVICES, "db", "redis"):
        assert services[name]["healthcheck"]["test"], name
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])
    assert "inspect ping" in " ".join(services["worker"]["healthcheck"]["test"])


def test_the_image_runs_as_an_unprivileged_user_who_owns_only_the_var_folder():
    lines = [line.strip() for line in (PROJECT_ROOT / "Dockerfile").read_text().splitlines() if line.strip()]
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0") and lines[-1].startswith("USER ")
    assert any("chown" in line and "/app/var" in line for line in lines)


def test_manage_py_without_a_secret_key_says_so_in_a_sentence_not_a_traceback(manage_py):
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "PAPERTRAIL_"))}
    env.update(DJANGO_SETTINGS_MODULE="papertrail.settings.main", DJANGO_DEBUG="0", PYTHONPATH=str(PROJECT_ROOT))
    done = subprocess.run([*manage_py, "check"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 2
    assert "DJANGO_SECRET_KEY must be set" in done.stderr and "DJANGO_DEBUG=1" in done.stderr
