"""bench/alerts.py's feeds at a tiny library: readers drawn from a day of a
handful of papers, and feeds timed although no alert gave them a secret."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.alerts.models import AlertSettings
from bench import alerts
from bench.alerts_data import build_readers, remove_readers
from tests.accounts.conftest import harvest, record

pytestmark = pytest.mark.django_db


def test_a_tiny_library_has_its_feeds_timed():
    harvest(
        *(record(f"2611.{n:05d}", title=f"Sparse attention {n}") for n in range(1, 6)),
        at=timezone.now() - timedelta(hours=3),
    )
    built = build_readers(users=3, seed=1)
    assert built.users == 3 and 0 < built.items <= 15  # at most the five papers each
    assert not AlertSettings.objects.exists()  # no alert was sent, so no feed secret yet
    results = alerts.measure_feeds(2)
    assert [r["name"] for r in results] == [
        "feed: whole trail, 50 entries",
        "feed: one follow",
        "feed: conditional GET (304)",
    ]
    assert [r["in_process"]["statuses"] for r in results] == [[200], [200], [304]]
    assert remove_readers() == {"users": 3}


def test_no_readers_is_said_plainly():
    with pytest.raises(SystemExit, match="no readers"):
        alerts.measure_feeds(2)
