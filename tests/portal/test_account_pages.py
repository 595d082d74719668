"""Sign-in (allauth's page) with throttled attempts, and the profile page where
tokens are created (secret shown once), listed and revoked."""

from __future__ import annotations

import re
import time

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import ApiToken, User
from accounts.tokens import hash_secret, split_token

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def site(settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "3/900s/ip,3/900s/key"}
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def user() -> User:
    return User.objects.create_user("ada", password=PASSWORD)


@pytest.fixture
def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_sign_in_and_out(user):
    client = Client()
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/follows/"  # no follow yet: the first step
    assert client.get("/me/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/me/")["Location"].startswith("/login/")


def test_failed_sign_ins_are_throttled_with_retry_after(user):
    client = Client()
    for _ in range(3):
        assert client.post("/accounts/login/", {"username": "ada", "password": "wrong"}).status_code == 200
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 429 and 0 < int(response["Retry-After"]) <= 900
    assert "_auth_user_id" not in client.session  # even the right password waits


def test_failures_from_other_addresses_never_lock_the_owner_out(user):
    for n in range(3):
        Client(REMOTE_ADDR=f"10.0.0.{n}").post("/accounts/login/", {"username": "ADA", "password": "wrong"})
    guesser = Client(REMOTE_ADDR="10.0.0.66")
    for _ in range(3):
        guesser.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert guesser.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 429
    owner = Client(REMOTE_ADDR="10.0.0.9")
    assert owner.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 302


def test_the_wait_grows_with_further_failures(user, settings, monkeypatch):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login_failed": "2/60s/key,4/240s/key,50/60s/ip"}
    clock = [time.time()]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    client = Client()

    def fail_twice_then_wait() -> int:
        for _ in range(2):
            assert client.post("/accounts/login/", {"username": "ada", "password": "wrong"}).status_code == 200
        refused = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
        assert refused.status_code == 429
        return int(refused["Retry-After"])

    first = fail_twice_then_wait()
    clock[0] += 61  # the first window has passed
    second = fail_twice_then_wait()
    assert first <= 60 < second <= 240 - 61 + 1


def test_the_address_is_read_with_the_apis_proxy_rule(user, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    behind_proxy = {"REMOTE_ADDR": "10.0.0.1"}  # the proxy's own address, the same for everyone
    for _ in range(3):
        Client(**behind_proxy, HTTP_X_FORWARDED_FOR="203.0.113.7").post(
            "/accounts/login/", {"username": "ada", "password": "wrong"}
        )
    elsewhere = Client(**behind_proxy, HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert elsewhere.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 302


def test_a_successful_sign_in_clears_the_username_failures(user):
    client = Client()
    for _ in range(2):
        client.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert client.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 302
    other = Client(REMOTE_ADDR="10.0.0.5")
    for _ in range(2):
        other.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert other.post("/accounts/login/", {"username": "ada", "password": PASSWORD}).status_code == 302


def test_the_profile_needs_a_signed_in_user(db):
    response = Client().get("/me/")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=/me/")


def test_a_new_token_is_shown_once_then_listed_by_name_and_prefix(browser):
    response = browser.post("/me/tokens/", {"name": "lab notebook"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    secret = re.search(r'id="new-token-secret">(pt_[^<]+)<', response.content.decode()).group(1)
    token = ApiToken.objects.get()
    prefix, raw = split_token(secret)
    assert token.name == "lab notebook" and token.prefix == prefix and token.secret_hash == hash_secret(raw)
    page = browser.get("/me/").content.decode()
    assert "lab notebook" in page and f"pt_{prefix}_" in page and secret not in page
    # The new token works against the API.
    assert browser.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Bearer {secret}").json()["token_name"] == "lab notebook"


def test_a_token_name_is_required_and_escaped(browser):
    assert browser.post("/me/tokens/", {"name": ""}).status_code == 400
    browser.post("/me/tokens/", {"name": "<script>alert(1)</script>"})
    page = browser.get("/me/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_revoking_a_token_stops_it_and_only_its_owner_can(browser, user):
    browser.post("/me/tokens/", {"name": "one"})
    token = ApiToken.objects.get()
    intruder = Client()
    intruder.force_login(User.objects.create_user("eve", password=PASSWORD))
    intruder.post(f"/me/tokens/{token.pk}/revoke/")
    token.refresh_from_db()
    assert token.revoked_at is None
    assert browser.post(f"/me/tokens/{token.pk}/revoke/").status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert "已撤销" in browser.get("/me/").content.decode()  # the token is listed as revoked


def test_token_forms_need_csrf(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post("/me/tokens/", {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()


def test_the_login_page_renders(db):
    response = Client().get("/login/", follow=True)
    assert response.status_code == 200 and 'name="username"' in response.content.decode()
