from collections.abc import Iterator

import pytest

from tests.replay_server import ReplayServer


@pytest.fixture
def replay_server() -> Iterator[ReplayServer]:
    """A local HTTP server replaying recorded responses (tests/fixtures/)."""
    server = ReplayServer().start()
    try:
        yield server
    finally:
        server.stop()
