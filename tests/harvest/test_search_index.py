"""The full-text index filled after ingest (harvest/search_index.py): a stored
paper is listed at once and found by a full-text query once indexed; a changed
title or abstract is re-indexed, and until then the paper stays findable by
what it said before."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.db import connection
from django.http import QueryDict

from harvest.filters import PaperFilterSet
from harvest.models import Paper
from harvest.search_index import index_pending_papers, pending_count
from harvest.services import paper_upsert_many
from tests.factories import NOW, record

pytestmark = pytest.mark.django_db


def found(query: str) -> list[str]:
    filterset = PaperFilterSet(QueryDict(f"q={query}"))
    assert filterset.is_valid(), filterset.errors
    return [paper.arxiv_id for paper in filterset.qs]


def vector_of(arxiv_id: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM harvest_paper WHERE arxiv_id = %s", [arxiv_id])
        return cursor.fetchone()[0]


def test_a_stored_paper_is_pending_until_the_pass_indexes_it():
    paper_upsert_many(records=[record("2611.00501", title="Quantum walks"), record("2611.00502")], now=NOW)

    assert Paper.objects.count() == 2
    assert pending_count() == 2
    if connection.vendor == "postgresql":
        assert vector_of("2611.00501") is None
        assert found("quantum") == []

    result = index_pending_papers(batch_size=1)

    assert result.papers == 2
    if connection.vendor == "postgresql":
        assert result.batches == 2  # one transaction per batch of one
    assert pending_count() == 0
    assert found("quantum") == ["2611.00501"]
    if connection.vendor == "postgresql":
        assert "'quantum':1A" in vector_of("2611.00501")
    assert index_pending_papers().papers == 0


def test_a_changed_text_is_reindexed_and_stays_findable_by_its_old_words_meanwhile():
    paper_upsert_many(records=[record("2611.00511", title="Quantum walks", abstract="On graphs.")], now=NOW)
    index_pending_papers()

    paper_upsert_many(records=[record("2611.00511", title="Classical walks", abstract="On graphs.", versions=2)])

    assert pending_count() == 1
    if connection.vendor == "postgresql":
        assert found("quantum") == ["2611.00511"]  # the old vector is kept until the pass
        assert found("classical") == []
    index_pending_papers()
    assert found("quantum") == []
    assert found("classical") == ["2611.00511"]


def test_a_record_that_changes_nothing_in_the_text_leaves_the_index_alone():
    paper_upsert_many(records=[record("2611.00521", title="Graph search", comments="v1")], now=NOW)
    index_pending_papers()

    paper_upsert_many(records=[record("2611.00521", title="Graph search", comments="12 pages")], now=NOW)

    assert Paper.objects.get().comments == "12 pages"
    assert pending_count() == 0


def test_papers_stored_by_the_orm_are_pending_too():
    """A paper created outside the harvest (admin, shell) gets the database default."""
    Paper.objects.create(arxiv_id="2611.00531", title="Sparse attention")

    assert pending_count() == 1
    index_pending_papers()
    assert found("attention") == ["2611.00531"]


def test_the_offline_bundle_is_searchable_when_the_command_ends():
    call_command("load_offline_bundle")

    assert Paper.objects.count() > 300
    assert pending_count() == 0
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM harvest_paper WHERE search_vector IS NULL")
            assert cursor.fetchone()[0] == 0


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_several_connections_share_the_pass():
    records = [record(f"2611.{n:05d}", title=f"Paper about topic{n % 7}") for n in range(700, 760)]
    paper_upsert_many(records=records, now=NOW)

    result = index_pending_papers(batch_size=7, workers=3)

    assert result.papers == 60
    assert pending_count() == 0
    # The pass's own threads are gone (by name: a replay server's request thread left by
    # another test may end at any moment, so the total count says nothing).
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("search-index-")]
    if connection.vendor == "postgresql":
        assert result.batches >= 9  # 60 papers in batches of at most 7, whichever connection took them
        assert sorted(found("topic3")) == [r.arxiv_id for r in records if r.title.endswith("topic3")]
