from collections.abc import Iterator

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def portal_site(settings) -> Iterator[None]:
    """A cache without numbers from another test."""
    cache.clear()
    yield
    cache.clear()
