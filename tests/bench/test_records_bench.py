"""bench/records.py at a tiny scale: the reader has the documented shape,
every figure's URL answers 200 through the real pages, and the reader goes
away again."""

from __future__ import annotations

import argparse
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.records.models import Record, RecordTag, Tag
from bench import records
from tests.accounts.conftest import harvest, record

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_library():
    harvest(
        *(
            record(f"2611.{n:05d}", title=f"Learning representations {n}", categories=[("cs.LG", "cs.CL")[n % 2]])
            for n in range(1, 81)
        ),
        at=timezone.now() - timedelta(hours=3),
    )


def test_the_reader_is_built_measured_and_removed(small_library):
    args = argparse.Namespace(records=60, tags=5, record_seed=1, record_runs=2, keep=False)
    report = records.run_records("unused", args)
    assert report["reader"]["records"] == 60 and report["removed"] > 0
    assert not User.objects.filter(username=records.READER).exists() and not Record.objects.exists()
    assert [r["name"] for r in report["results"] if r["in_process"]["statuses"] != [200]] == []
    assert len(report["results"]) == 16 and all(r["in_process"]["queries"] < 15 for r in report["results"])


def test_the_readers_records_have_states_tags_and_notes(small_library):
    user, count, links = records.build_reader(records=60, tags=5, seed=2)
    assert count == 60 == Record.objects.filter(user=user).count()
    assert Tag.objects.filter(user=user).count() == 5 and RecordTag.objects.filter(user=user).count() == links
    assert set(Record.objects.values_list("state", flat=True)) == {"to_read", "reading", "read"}
    assert Record.objects.exclude(note="").exists() and Record.objects.filter(last_read_version=1).exists()
