"""The deployment: /healthz names each dependency's state (and no secret), and
docker-compose migrates once, before web, worker and beat start, with a health
check for every service."""

from __future__ import annotations

import socket

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
