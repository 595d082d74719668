"""`create_api_token`: the secret once on stdout, a working token, and errors
that say what was wrong."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.services import MAX_ACTIVE_TOKENS
from accounts.tokens import hash_secret, split_token

pytestmark = pytest.mark.django_db


def test_create_api_token_prints_a_working_secret_once(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/min", "user": "100000/min"},
    }
    User.objects.create_user("ada", password="x")
    out, err = StringIO(), StringIO()
    call_command("create_api_token", "ada", "lab notebook", stdout=out, stderr=err)
    secret = out.getvalue().strip()
    prefix, raw = split_token(secret)
    token = ApiToken.objects.get()
    assert token.name == "lab notebook" and token.prefix == prefix and token.secret_hash == hash_secret(raw)
    assert secret not in err.getvalue() and prefix in err.getvalue()
    response = APIClient().get("/api/v1/me/", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.json()["token_name"] == "lab notebook"


def test_create_api_token_errors():
    with pytest.raises(CommandError, match="no user with the username 'nobody'"):
        call_command("create_api_token", "nobody", "x")
    user = User.objects.create_user("ada", password="x")
    with pytest.raises(CommandError, match="NAME"):
        call_command("create_api_token", "ada", "  ")
    for n in range(MAX_ACTIVE_TOKENS):
        call_command("create_api_token", "ada", f"t{n}", stdout=StringIO(), stderr=StringIO())
    with pytest.raises(CommandError, match="revoke one first"):
        call_command("create_api_token", "ada", "one more", stdout=StringIO(), stderr=StringIO())
    assert ApiToken.objects.filter(user=user).count() == MAX_ACTIVE_TOKENS
