import pytest

from tests.accounts.alerts.world import day_of_papers, follows, reader
from tests.accounts.channels.world import stand_in


@pytest.fixture(autouse=True)
def _listing_day(on_a_listing_day):
    """Every channel test runs from noon of a day arXiv announced, Beijing
    time (tests/clock.py): a daily channel's period and window depend on the
    hour, which these tests are not about."""
    return on_a_listing_day


@pytest.fixture
def server(replay_server, settings):
    """The stand-in of every provider, each path answering success."""
    return stand_in(replay_server, settings)


@pytest.fixture
def alice(db):
    """A reader in Beijing with the alerts' follows, and a day of papers they match."""
    alice = reader("alice")
    follows(alice)
    day_of_papers()
    return alice
