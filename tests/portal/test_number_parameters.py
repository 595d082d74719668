"""A number parameter of a page or form that is not a number, or is one only to
`str.isdigit` (a superscript two: int() refuses it), or is far too large, is
refused like any other bad value: never a 500."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from accounts.follows.services import follow_create
from accounts.models import User
from tests import factories as f

pytestmark = pytest.mark.django_db

GETS = [
    ("/papers/", "size"),
    ("/papers/2611.00001/", "since"),
    ("/trail/", "follow"),
    ("/trail/", "undo"),
    ("/trail/recommended/", "tag"),
    ("/records/", "page"),
]
POSTS = [
    ("/records/bulk/", {"action": "remove"}, "record"),
    ("/records/tags/", {}, "tag"),
    ("/me/alerts/resubscribe/", {}, "follow"),
    ("/me/alerts/weekly-day/", {}, "weekly_day"),
]


@pytest.mark.parametrize("value", ["²", "9" * 30, "x"])
def test_number_parameters_that_are_not_numbers_are_refused_without_a_server_error(value):
    f.store(f.record("2611.00001", categories=["cs.CL"]), at=timezone.now())
    user = User.objects.create_user("reader", password="x")
    follow_create(user=user, kind="category", value={"code": "cs.CL"}, name="NLP")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    answers = {f"GET {url}?{name}": client.get(url, {name: value}).status_code for url, name in GETS}
    for url, data, name in POSTS:
        answers[f"POST {url} {name}"] = client.post(url, {**data, name: value}).status_code
    assert {where: code for where, code in answers.items() if code >= 500} == {}
