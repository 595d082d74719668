"""The suite's clock: `--clock=ISO-DATETIME` (default: $PAPERTRAIL_TEST_CLOCK)
starts the whole session at that instant, and time moves on from there.

The app reads the time through timezone.now() (and arXiv's announcement
calendar through it), so a test that leaves the clock alone passes or fails
with the real date. Two things keep that out of the suite:

- a test that depends on the date, the weekday, the hour, the announcement
  calendar or a window relative to now is marked `calendar`, and starts at a
  known instant: the --clock one if given, else LISTING_DAY_NOON. `make
  test-calendar` runs these tests at a Saturday, a Sunday, a holiday, the
  ends of a month and of a year, and either side of midnight in Beijing;
- a test that needs a day of a kind (one with a daily alert due) travels
  there itself (`on_a_listing_day`), whatever the clock.

time-machine patches the clock at the C level, so timezone.now(),
datetime.now, date.today and time.time follow; time.monotonic() and
the database's own now() do not. Nor does it reach a subprocess: one on the
test database (`subprocess_env`: a Celery worker, a manage.py command) is
handed the shift (`subprocess_clock`) and travels by it when it loads the
test settings, so both processes agree on the time; other subprocesses keep
the real clock.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

BEIJING = ZoneInfo("Asia/Shanghai")
# A Tuesday listing: arXiv announced it on Monday 7 December at 20:00 US
# Eastern, 09:00 on Tuesday in Beijing. At noon in Beijing (04:00 UTC, 23:00
# on Monday in New York) its daily alert is due, and timezone.localdate
# (UTC) and Beijing's date are the listing's.
LISTING_DAY_NOON = datetime(2026, 12, 8, 12, 0, tzinfo=BEIJING)
LISTING_DAY = LISTING_DAY_NOON.date()

_session_travel: time_machine.travel | None = None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--clock",
        default=os.environ.get("PAPERTRAIL_TEST_CLOCK") or None,
        metavar="ISO-DATETIME",
        help="start the session's clock at this instant, with its offset (2026-12-05T10:00+08:00); "
        "time moves on from there. Default: $PAPERTRAIL_TEST_CLOCK, else the real clock.",
    )


def session_clock(value: str) -> datetime:
    """The --clock instant; an offset is required, since a naive time would be
    read in whatever zone the machine is set to."""
    try:
        instant = datetime.fromisoformat(value)
    except ValueError:
        raise pytest.UsageError(f"--clock: {value!r} is not an ISO date and time") from None
    if instant.tzinfo is None:
        raise pytest.UsageError(f"--clock: {value!r} needs an offset (2026-12-05T10:00+08:00 or ...Z)")
    return instant


def pytest_configure(config: pytest.Config) -> None:
    global _session_travel
    value = config.getoption("clock")
    if value:
        # Why: to run the suite as it runs on a Saturday, a holiday or at
        # midnight in Beijing without waiting for one. Started before
        # collection, so that what a module reckons at import sees it too.
        _session_travel = time_machine.travel(session_clock(value), tick=True)
        _session_travel.start()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # First of the test's fixtures, so that the data they make is made on its clock.
    for item in items:
        if item.get_closest_marker("calendar"):
            item.fixturenames.insert(0, "calendar_clock")  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    global _session_travel
    if _session_travel is not None:
        _session_travel.stop()
        _session_travel = None


def pytest_report_header(config: pytest.Config) -> str:
    value = config.getoption("clock")
    if not value:
        return "clock: real"
    instant = session_clock(value)
    return f"clock: from {instant.isoformat()} ({instant.astimezone(BEIJING):%A %Y-%m-%d %H:%M} Beijing)"


@pytest.fixture
def calendar_clock(request: pytest.FixtureRequest) -> Iterator[datetime]:
    """A `calendar` test starts at the --clock instant (each one, not only the
    session's first), else at LISTING_DAY_NOON: never at the real date."""
    value = request.config.getoption("clock")
    instant = session_clock(value) if value else LISTING_DAY_NOON
    with time_machine.travel(instant, tick=True):
        yield instant


@pytest.fixture
def on_a_listing_day() -> Iterator[date]:
    """The test runs on LISTING_DAY from noon in Beijing, whatever the clock:
    a day arXiv announced, with its daily alert due."""
    with time_machine.travel(LISTING_DAY_NOON, tick=True):
        yield LISTING_DAY


@pytest.fixture
def subprocess_clock() -> dict[str, str]:
    """The environment that puts a subprocess on this test's clock: the
    shift from the real clock, which papertrail/settings/test.py travels by.
    Taken when the fixture is set up; the subprocess's clock ticks from there."""
    if not time_machine.escape_hatch.is_travelling():
        return {}
    return {"PAPERTRAIL_TEST_CLOCK_SHIFT": repr(time.time() - time_machine.escape_hatch.time.time())}
