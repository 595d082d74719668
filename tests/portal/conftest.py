from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import User


@pytest.fixture(autouse=True)
def portal_site(settings) -> Iterator[None]:
    """A cache without numbers from another test."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def reader(db) -> User:
    return User.objects.create_user("reader", password="x")


@pytest.fixture
def reader_client(reader) -> Client:
    """A client signed in as `reader`."""
    client = Client()
    client.force_login(reader)
    return client


@pytest.fixture
def other_client(db) -> Client:
    """A client signed in as another user, who owns none of the reader's things."""
    client = Client()
    client.force_login(User.objects.create_user("other", password="x"))
    return client
