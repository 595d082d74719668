"""A bulk load leaves the library's tables with planner statistics, so a new
library is fast at once, whether autovacuum runs or not."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection

from harvest.models import Paper
from harvest.table_statistics import LIBRARY_MODELS
from harvest.tasks import index_search
from tests import factories as f
from tests.replay_server import FIXTURES

pytestmark = pytest.mark.django_db

SAMPLE = FIXTURES / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
TABLES = [model._meta.db_table for model in LIBRARY_MODELS]


def forget_statistics() -> None:
    """What a freshly filled table has: no statistics (undone with the test's transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM pg_statistic WHERE starelid = ANY(%s::regclass[])", [TABLES])


def tables_with_statistics() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT tablename FROM pg_stats WHERE tablename = ANY(%s)", [TABLES])
        return {row[0] for row in cursor.fetchall()}


def test_import_snapshot_gathers_statistics_of_what_it_filled(capsys):
    forget_statistics()
    assert tables_with_statistics() == set()
    call_command("import_snapshot", str(SAMPLE))
    assert Paper.objects.count() == 200
    filled = {"harvest_paper", "harvest_version", "harvest_author", "harvest_authorship", "harvest_papercategory"}
    assert filled <= tables_with_statistics()
    assert "planner statistics gathered" in capsys.readouterr().out


def test_load_offline_bundle_gathers_statistics():
    forget_statistics()
    call_command("load_offline_bundle")
    assert {"harvest_paper", "harvest_version"} <= tables_with_statistics()


def test_an_index_pass_over_many_papers_gathers_statistics_and_a_small_one_does_not(settings):
    settings.PAPERTRAIL_ANALYZE_AFTER = 3
    forget_statistics()
    f.store(f.record("2611.00001"), f.record("2611.00002"), f.record("2611.00003"), at=f.NOW)
    Paper.objects.filter(arxiv_id__in=["2611.00001", "2611.00002"]).update(search_pending=True)
    small = index_search()
    assert small.startswith("2 papers indexed") and "statistics" not in small
    assert tables_with_statistics() == set()
    Paper.objects.update(search_pending=True)
    large = index_search()
    assert large.startswith("3 papers indexed") and large.endswith("statistics gathered")
    assert set(TABLES) - {"harvest_communitypick"} <= tables_with_statistics()
