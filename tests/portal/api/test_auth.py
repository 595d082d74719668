"""Token and session authentication of the API, tokens never in URLs nor in
logs, and request rates."""

from __future__ import annotations

import logging

import pytest
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.reporting import CredentialSafeReporterFilter
from accounts.services import api_token_revoke
from accounts.tokens import hash_secret, split_token

pytestmark = pytest.mark.django_db


def bearer(secret: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def test_a_token_authenticates_and_only_its_hash_is_stored(client_api, user, token):
    response = client_api.get("/api/v1/me/", **bearer(token))
    assert response.status_code == 200
    body = response.json()
    (feed,) = body.pop("feeds")  # no follows: only the whole trail's feed
    assert feed["follow_id"] is None and feed["url"].endswith("/trail.atom")
    assert body == {
        "username": "ada",
        "authenticated_by": "token",
        "token_name": "notebook",
        "follows": 0,
        "unread": 0,
    }
    stored = ApiToken.objects.get()
    prefix, secret = split_token(token)
    assert stored.prefix == prefix and stored.secret_hash == hash_secret(secret)
    assert secret not in {str(value) for value in ApiToken.objects.values().get().values()}
    assert stored.last_used_at is not None


def test_the_token_keyword_works_too(client_api, token):
    assert client_api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 200


def test_without_credentials_me_is_401_with_a_challenge(client_api, db):
    response = client_api.get("/api/v1/me/")
    assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "mangle", [lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"), lambda t: t + "x", lambda t: "x"]
)
def test_a_wrong_token_is_401_even_on_public_endpoints(client_api, token, mangle):
    for path in ("/api/v1/me/", "/api/v1/papers/"):
        response = client_api.get(path, **bearer(mangle(token)))
        assert response.status_code == 401 and response.json()["code"] == "authentication_failed"


def test_a_revoked_token_no_longer_works(client_api, user, token):
    assert api_token_revoke(user=user, token_id=ApiToken.objects.get().pk)
    response = client_api.get("/api/v1/me/", **bearer(token), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 401 and "revoked" in response.json()["detail"]
    chinese = client_api.get("/api/v1/me/", **bearer(token), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    assert chinese.json()["detail"] == "此令牌已被撤销。"
    # A client that asks for no language (a script, curl) reads English; one the site lacks too.
    assert client_api.get("/api/v1/me/", **bearer(token)).json()["detail"] == "This token has been revoked."
    french = client_api.get("/api/v1/me/", **bearer(token), HTTP_ACCEPT_LANGUAGE="fr-FR")
    assert french.json()["detail"] == "This token has been revoked."


def test_a_token_of_an_inactive_user_does_not_work(client_api, user, token):
    user.is_active = False
    user.save()
    assert client_api.get("/api/v1/me/", **bearer(token)).status_code == 401


@pytest.mark.parametrize("parameter", ["token", "access_token", "api_key", "q"])
def test_a_token_in_the_query_string_is_refused_without_echoing_it(client_api, token, parameter):
    response = client_api.get(f"/api/v1/me/?{parameter}={token}")
    assert response.status_code == 400
    body = response.json()
    assert parameter in body["errors"] and "Authorization" in body["detail"]
    assert token not in response.content.decode()
    # Also with a valid header: the URL copy is refused, not silently ignored.
    assert client_api.get(f"/api/v1/papers/?{parameter}={token}", **bearer(token)).status_code == 400


def test_tokens_never_reach_the_logs(client_api, token, caplog):
    caplog.set_level(logging.DEBUG)
    client_api.get("/api/v1/me/", **bearer(token))
    client_api.get("/api/v1/me/", **bearer(token[:-2] + "zz"))
    client_api.get(f"/api/v1/papers/?token={token}")
    client_api.get("/api/v1/papers/", HTTP_AUTHORIZATION=f"Bearer {token} extra")
    _prefix, secret = split_token(token)
    assert caplog.records, "the requests were expected to log something (4xx warnings)"
    for record in caplog.records:
        assert secret not in record.getMessage() and secret not in str(record.args)


def test_error_reports_hide_the_authorization_header(token):
    request = RequestFactory().get("/api/v1/papers/", HTTP_AUTHORIZATION=f"Bearer {token}")
    meta = CredentialSafeReporterFilter().get_safe_request_meta(request)
    assert token not in str(meta) and meta["HTTP_AUTHORIZATION"] != f"Bearer {token}"


def test_a_session_authenticates_the_browser_and_writes_need_csrf(user):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    response = browser.get("/api/v1/me/")
    assert response.status_code == 200 and response.json()["authenticated_by"] == "session"
    write = browser.post("/api/v1/me/", data="{}", content_type="application/json")
    assert write.status_code == 403 and "CSRF" in write.json()["detail"]


def test_anonymous_reads_are_allowed_and_writes_are_not(client_api, db):
    assert client_api.get("/api/v1/papers/").status_code == 200
    assert client_api.post("/api/v1/papers/", {}, format="json").status_code == 401


def test_an_anonymous_client_beyond_its_rate_gets_429_with_retry_after(settings, db):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "3/min", "user": "5/min"}}
    client = APIClient()
    assert [client.get("/api/v1/sources/").status_code for _ in range(3)] == [200, 200, 200]
    response = client.get("/api/v1/sources/")
    assert response.status_code == 429 and response.json()["code"] == "throttled"
    assert 0 < int(response["Retry-After"]) <= 60


def test_a_token_user_has_its_own_rate(settings, token):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "1/min", "user": "4/min"}}
    client = APIClient()
    assert client.get("/api/v1/sources/").status_code == 200
    assert client.get("/api/v1/sources/").status_code == 429  # anonymous rate spent
    statuses = [client.get("/api/v1/sources/", **bearer(token)).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
