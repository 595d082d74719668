"""bench/loadtest.py's pure parts: the load user's token and session work
against the real views, the signed-in pages resolve, and the saturation
point is the last step that held before the first that did not."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import ApiToken
from bench import loadtest

pytestmark = pytest.mark.django_db


def step(users: int, held: bool) -> dict:
    return {"users": users, "meets_target": held, "total": {"requests_per_second": users * 10.0}}


def test_the_saturation_point_is_the_last_step_before_the_first_miss():
    assert loadtest.saturation_point([step(5, True), step(10, True), step(20, False), step(40, True)])["users"] == 10
    assert loadtest.saturation_point([step(5, False), step(10, True)]) is None
    assert loadtest.saturation_point([step(5, True), step(10, True)])["users"] == 10


def test_the_signed_in_pages_include_me():
    urls = loadtest.signed_in_urls()

    assert urls[0] == "/me/"
    assert all(Client().get(url).status_code == 302 for url in urls)  # signed out: to the sign-in page


def test_the_load_user_s_token_and_session_are_accepted_and_renewed_each_run():
    loadtest.load_user()
    token, cookie, session = loadtest.load_user()

    client = Client()
    client.cookies[cookie] = session
    assert client.get("/me/").status_code == 200
    assert Client().get("/api/v1/me/", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200
    assert ApiToken.objects.filter(user__username=loadtest.LOAD_USERNAME).count() == 1
