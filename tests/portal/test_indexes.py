"""Migration 0003: the stored search vector and the indexes behind every sort
and filter (PostgreSQL); SQLite migrates without them."""

import pytest
from django.db import connection
from django.http import QueryDict
from django.utils import timezone

from harvest.filters import PaperFilterSet
from portal.pagination import keyset_page
from tests import factories as f

pytestmark = pytest.mark.django_db

PORTAL_INDEXES = {
    "paper_search_vector_idx",
    "paper_updated_nl_idx",
    "paper_published_nl_idx",
    "paper_ai_updated_idx",
    "paper_revised_updated_idx",
}


def plan(params: str) -> str:
    """The PostgreSQL plan of a library page query, sequential scans disallowed
    so that the plan shows which index can serve it. Statistics and sizes that
    earlier tests' bulk loads left are reset first, as on a new table (inside
    the test's transaction): on a handful of rows they steer the planner to a
    nested loop from the paper table instead."""
    filterset = PaperFilterSet(QueryDict(params))
    assert filterset.is_valid(), filterset.errors
    queryset = filterset.qs[:21]
    with connection.cursor() as cursor:
        tables = "SELECT oid FROM pg_class WHERE relname LIKE 'harvest\\_%%'"
        cursor.execute(f"DELETE FROM pg_statistic WHERE starelid IN ({tables})")  # noqa: S608 - constant SQL
        cursor.execute(f"UPDATE pg_class SET reltuples = -1, relpages = 0 WHERE oid IN ({tables})")  # noqa: S608
        cursor.execute("SET LOCAL enable_seqscan = off")
        sql, args = queryset.query.sql_with_params()
        cursor.execute("EXPLAIN " + sql, args)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_search_vector_and_indexes_exist_on_postgresql_only():
    with connection.cursor() as cursor:
        columns = {c.name for c in connection.introspection.get_table_description(cursor, "harvest_paper")}
        indexes = set(connection.introspection.get_constraints(cursor, "harvest_paper")) | set(
            connection.introspection.get_constraints(cursor, "harvest_author")
        )
    if connection.vendor == "postgresql":
        assert "search_vector" in columns
        assert indexes >= PORTAL_INDEXES
    else:
        assert "search_vector" not in columns
        assert not PORTAL_INDEXES & indexes


def test_stored_search_vector_follows_title_and_abstract_edits():
    f.store(f.record("2611.00301", title="Quantum walks", abstract="On graphs."), at=timezone.now())
    assert [p.arxiv_id for p in PaperFilterSet(QueryDict("q=quantum")).qs] == ["2611.00301"]
    f.store(f.record("2611.00301", title="Classical walks", abstract="On graphs.", versions=2), at=timezone.now())
    assert list(PaperFilterSet(QueryDict("q=quantum")).qs) == []
    assert [p.arxiv_id for p in PaperFilterSet(QueryDict("q=classical")).qs] == ["2611.00301"]


@pytest.mark.parametrize(
    ("params", "index"),
    [
        ("sort=updated", "paper_updated_nl_idx"),
        ("sort=published", "paper_published_nl_idx"),
        ("sort=included_at", "paper_included_idx"),
        ("sort=updated&ai=1", "paper_ai_updated_idx"),
        ("sort=updated&revised=1", "paper_revised_updated_idx"),
        ("q=graph&mode=keyword", "paper_search_vector_idx"),
        ("category=cs.LG", "papercategory_category_idx"),
        ("author=Ada+Lovelace", "author_name_unique"),  # its UPPER(name) prefix (migration 0007)
        # the picks' foreign-key index from each paper, or each pick's paper by primary key
        ("hf=1", "Index Cond: (paper_id = harvest_paper.id)|Index Cond: (id = u0.paper_id)"),
    ],
)
def test_every_sort_and_filter_can_use_an_index(params, index):
    if connection.vendor != "postgresql":
        # SQLite has no planner switch to compare against; the filter still works.
        assert PaperFilterSet(QueryDict(params)).is_valid()
        return
    f.store(f.record("2611.00401", authors=["Ada Lovelace"]), at=timezone.now())
    text = plan(params)
    assert any(option in text for option in index.split("|")), text


def test_keyset_pages_resume_through_the_index_not_an_offset():
    f.store(*[f.record(f"2611.{n:05d}") for n in range(500, 530)], at=timezone.now())
    filterset = PaperFilterSet(QueryDict("sort=updated"))
    assert filterset.is_valid()
    first = keyset_page(filterset.qs, sort="updated", cursor=None, size=10)
    second = keyset_page(filterset.qs, sort="updated", cursor=first.next_cursor, size=10)
    assert not {p.pk for p in first.papers} & {p.pk for p in second.papers}
    assert len(second.papers) == 10
