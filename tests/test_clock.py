"""The suite's clock (tests/clock.py): --clock and $PAPERTRAIL_TEST_CLOCK put
timezone.now() at the instant given and time ticks on from there; each
`calendar` test starts at that instant, else at a Tuesday listing day; a
subprocess on the test database gets the test's clock."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from accounts.alerts.sending import due_day
from harvest.completeness import is_listing_day
from tests.clock import BEIJING
from tests.conftest import PROJECT_ROOT

pytest_plugins = ["pytester"]

# Inner sessions: the clock plugin alone, on Django's clock without a database.
CONFTEST = """
from django.conf import settings

settings.configure(USE_TZ=True, TIME_ZONE="UTC")
"""
INI = """
[pytest]
addopts = -p tests.clock -p no:django -p no:cacheprovider
markers = calendar: dated
"""
SESSION = """
import time
from datetime import date, datetime, timedelta

import pytest
from django.utils import timezone

WANTED = datetime.fromisoformat("{wanted}")


def test_now_is_at_the_instant_and_ticks():
    first = timezone.now()
    assert WANTED <= first < WANTED + timedelta(seconds=30), first
    assert date.today() == datetime.now().date() and time.time() == pytest.approx(first.timestamp(), abs=30)
    time.sleep(0.05)
    assert timezone.now() - first >= timedelta(seconds=0.05)


@pytest.mark.calendar
def test_a_calendar_test_starts_at_the_instant(calendar_clock):
    assert calendar_clock == WANTED and WANTED <= timezone.now() < WANTED + timedelta(seconds=1)
    time.sleep(1.1)  # the next calendar test starts at the instant again


@pytest.mark.calendar
def test_so_does_the_next(calendar_clock):
    assert WANTED <= timezone.now() < WANTED + timedelta(seconds=1)


def test_a_test_on_a_listing_day_is_there_whatever_the_clock(on_a_listing_day):
    assert timezone.localdate() == on_a_listing_day == date(2026, 12, 8)
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(PROJECT_ROOT))
    monkeypatch.delenv("DJANGO_SETTINGS_MODULE", raising=False)
    monkeypatch.delenv("PAPERTRAIL_TEST_CLOCK", raising=False)
    pytester.makeini(INI)
    pytester.makeconftest(CONFTEST)
    return pytester


@pytest.mark.parametrize("zone", ["+08:00", "Z"])
def test_the_clock_option_puts_now_at_its_instant_and_time_ticks(inner, zone):
    wanted = "2026-12-05T23:59:00" + zone
    inner.makepyfile(SESSION.format(wanted=wanted))
    result = inner.runpytest_subprocess(f"--clock={wanted}")
    result.assert_outcomes(passed=4)
    assert any(line.startswith("clock: from 2026-12-05T23:59:00") for line in result.outlines)


def test_the_environment_gives_the_default_and_the_option_wins(inner, monkeypatch):
    monkeypatch.setenv("PAPERTRAIL_TEST_CLOCK", "2027-01-01T00:01+08:00")
    inner.makepyfile(SESSION.format(wanted="2027-01-01T00:01+08:00"))
    inner.runpytest_subprocess().assert_outcomes(passed=4)
    inner.makepyfile(SESSION.format(wanted="2026-11-30T12:00+08:00"))
    inner.runpytest_subprocess("--clock=2026-11-30T12:00+08:00").assert_outcomes(passed=4)


def test_without_a_clock_the_session_is_on_the_real_clock_and_calendar_tests_on_a_listing_day(inner):
    inner.makepyfile(
        """
        from datetime import timedelta

        import pytest
        import time_machine
        from django.utils import timezone

        from tests.clock import LISTING_DAY_NOON


        def test_real():
            assert not time_machine.escape_hatch.is_travelling()


        @pytest.mark.calendar
        def test_dated():
            assert LISTING_DAY_NOON <= timezone.now() < LISTING_DAY_NOON + timedelta(seconds=1)
        """
    )
    result = inner.runpytest_subprocess()
    result.assert_outcomes(passed=2)
    assert "clock: real" in result.outlines


@pytest.mark.parametrize("value", ["2026-12-05T10:00", "Saturday"])
def test_a_clock_without_an_offset_or_not_a_time_is_refused(inner, value):
    inner.makepyfile("def test_nothing(): pass")
    result = inner.runpytest_subprocess(f"--clock={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--clock: {value!r}" in result.stderr.str()


YEARS_LAST_MINUTE = datetime(2026, 12, 31, 23, 59, tzinfo=UTC)


@pytest.fixture
def at_the_years_last_minute():
    with time_machine.travel(YEARS_LAST_MINUTE, tick=True):
        yield


def test_a_subprocess_on_the_test_database_keeps_the_tests_clock(at_the_years_last_minute, subprocess_env):
    """A manage.py command or a Celery worker loads the test settings, which
    travel by the shift the test hands it."""
    code = "import papertrail.settings.test; from datetime import UTC, datetime; print(datetime.now(UTC).isoformat())"
    done = subprocess.run([sys.executable, "-c", code], env=subprocess_env, capture_output=True, text=True, check=True)
    seen = datetime.fromisoformat(done.stdout.strip())
    assert YEARS_LAST_MINUTE <= seen < YEARS_LAST_MINUTE + timedelta(seconds=30)


def test_on_a_listing_day_the_daily_alert_is_due(on_a_listing_day, db):
    assert on_a_listing_day.strftime("%A") == "Tuesday" and is_listing_day(on_a_listing_day)
    assert timezone.localdate() == timezone.localdate(timezone=BEIJING) == on_a_listing_day
    assert due_day(now=timezone.now()) == on_a_listing_day
