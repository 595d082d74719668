from collections.abc import Iterator

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import api_token_create

HIGH_RATES = {"anon": "100000/min", "user": "100000/min"}


@pytest.fixture(autouse=True)
def api_site(settings) -> Iterator[None]:
    """Rates no test reaches by accident, and an empty cache (throttle
    history and cached overview numbers from another test)."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": dict(HIGH_RATES)}
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def client_api() -> APIClient:
    return APIClient()


@pytest.fixture
def user(db) -> User:
    return User.objects.create_user("ada", password="correct horse battery staple")


@pytest.fixture
def token(user) -> str:
    _token, secret = api_token_create(user=user, name="notebook")
    return secret
