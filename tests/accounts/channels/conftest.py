import pytest


@pytest.fixture(autouse=True)
def _listing_day(on_a_listing_day):
    """Every channel test runs from noon of a day arXiv announced, Beijing
    time (tests/clock.py): a daily channel's period and window depend on the
    hour, which these tests are not about."""
    return on_a_listing_day
