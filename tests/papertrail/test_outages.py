"""The site degrades instead of failing, against real servers: with its Redis
stopped, pages, the API and sign-in still answer and the throttles count in
process memory; with PostgreSQL unreachable, pages answer 503 with
Retry-After in the reader's language and the API answers 503 JSON."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import requests
from django.core.cache import cache
from django.urls import reverse

from accounts.models import User
from tests.conftest import PROJECT_ROOT


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, *, process: subprocess.Popen, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)  # polling a port with a deadline, not waiting for an outcome
    raise RuntimeError(f"nothing listens on {port} after {seconds} s")


@pytest.fixture
def own_redis() -> Iterator[tuple[subprocess.Popen, str]]:
    """A redis-server of this test's own, on its own port, that the test stops."""
    binary = shutil.which("redis-server")
    assert binary, "redis-server is needed (the CI machine has it)"
    port = free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    wait_for_port(port, process=process)
    try:
        yield process, f"redis://127.0.0.1:{port}/0"
    finally:
        process.kill()
        process.wait()


@pytest.fixture
def site_on_own_redis(settings, own_redis):
    process, url = own_redis
    settings.CACHES = {
        "default": {
            "BACKEND": "papertrail.cache.ResilientRedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.5},
        }
    }
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "3/min", "user": "3/min"}}
    yield process
    cache.clear()


@pytest.mark.django_db
def test_with_redis_stopped_pages_api_and_sign_in_still_answer(client, site_on_own_redis, caplog):
    User.objects.create_user("ada", password="correct horse battery staple")
    assert client.get("/").status_code == 200
    cache.set("probe", 1)
    assert cache.get("probe") == 1 and not cache.redis_is_down  # on the test's own Redis

    site_on_own_redis.kill()
    site_on_own_redis.wait()

    for path in ("/", "/papers/", "/sources/", "/api/v1/stats/"):
        assert client.get(path).status_code == 200, path
    assert "Redis unreachable" in caplog.text
    signed_in = client.post(reverse("account_login"), {"username": "ada", "password": "correct horse battery staple"})
    assert signed_in.status_code in (302, 303) and "_auth_user_id" in client.session


@pytest.mark.django_db
def test_with_redis_stopped_the_api_throttle_counts_in_process(client, site_on_own_redis):
    site_on_own_redis.kill()
    site_on_own_redis.wait()
    answers = [client.get("/api/v1/papers/").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]


def test_a_clear_also_forgets_what_process_memory_kept_while_redis_was_away(own_redis, site_on_own_redis):
    _process, url = own_redis
    site_on_own_redis.kill()
    site_on_own_redis.wait()
    cache.set("stale", "kept in memory")  # Redis is away: process memory keeps it
    assert cache.redis_is_down and cache.get("stale") == "kept in memory"
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    back = subprocess.Popen(
        [shutil.which("redis-server"), "--port", str(port), "--bind", "127.0.0.1", "--save", ""],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process=back)
        cache._down_until = 0.0  # the retry pause has run out: Redis is tried again
        cache.clear()
        assert not cache.redis_is_down
    finally:
        back.kill()
        back.wait()
    assert cache.get("stale") is None  # Redis away again: memory must not serve what the clear removed


@pytest.fixture(scope="module")
def site_without_database() -> Iterator[str]:
    """gunicorn serving the site with DATABASE_URL at a port where nothing listens."""
    closed = free_port()
    port = free_port()
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "papertrail.settings.main",
        "DJANGO_SECRET_KEY": "a-test-secret-for-the-outage-server-0123456789abcdef",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{closed}/papertrail",
        "PAPERTRAIL_VAR_DIR": "/tmp/papertrail-outage-test",
        # No search here: without --preload the worker would load the models
        # before its first answer (tens of seconds on a busy machine).
        "PAPERTRAIL_PRELOAD_SEARCH_MODELS": "0",
        "PYTHONPATH": str(PROJECT_ROOT),
    }
    gunicorn = [sys.executable, "-m", "gunicorn", "papertrail.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1"]
    process = subprocess.Popen(gunicorn, env=env, cwd=PROJECT_ROOT, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process=process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.integration
@pytest.mark.parametrize("path", ["/", "/papers/", "/papers/2611.00001/", "/sources/"])
def test_with_the_database_unreachable_pages_answer_503_in_the_readers_language(site_without_database, path):
    chinese = requests.get(site_without_database + path, timeout=30)
    assert chinese.status_code == 503 and chinese.headers["Retry-After"].isdigit()
    assert "暂时无法访问" in chinese.text and "Content-Security-Policy" in chinese.headers
    english = requests.get(site_without_database + path, cookies={"django_language": "en"}, timeout=30)
    assert english.status_code == 503 and "Temporarily unavailable" in english.text


@pytest.mark.integration
def test_with_the_database_unreachable_the_api_answers_503_json(site_without_database):
    response = requests.get(site_without_database + "/api/v1/papers/", timeout=30)
    assert response.status_code == 503 and response.headers["Retry-After"].isdigit()
    assert response.json()["code"] == "unavailable"


@pytest.mark.django_db
def test_with_redis_stopped_the_sources_page_says_so(client, site_on_own_redis):
    client.force_login(User.objects.create_user("ops", is_staff=True))  # the operator view names it
    assert 'id="dependencies"' not in client.get("/sources/operator/").content.decode()
    site_on_own_redis.kill()
    site_on_own_redis.wait()
    page = client.get("/sources/operator/")
    assert page.status_code == 200
    assert "Redis 无法连接" in page.content.decode()
