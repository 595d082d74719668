from collections.abc import Iterator

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def portal_site(settings) -> Iterator[None]:
    """The portal's URLs, and a cache without numbers from another test."""
    settings.ROOT_URLCONF = "tests.portal.urls"
    cache.clear()
    yield
    cache.clear()
