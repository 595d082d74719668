"""bench/floors.py on a tiny library: the statements a request runs are
captured, reads apart from writes, and replayed bare with the rows they read."""

from __future__ import annotations

import pytest
from django.test import Client

from bench import floors
from bench.scenarios import Scenario
from tests.factories import NOW, many_papers

pytestmark = pytest.mark.django_db


def test_reads_are_replayed_and_writes_are_not():
    assert floors.is_read('SELECT "harvest_paper"."id" FROM "harvest_paper"')
    assert floors.is_read("  WITH x AS (SELECT 1) SELECT * FROM x")
    assert floors.is_read("(SELECT 1) UNION ALL (SELECT 2)")
    assert not floors.is_read('UPDATE "django_session" SET "expire_date" = now()')
    assert not floors.is_read('INSERT INTO "django_session" VALUES (1)')
    assert not floors.is_read('SAVEPOINT "s1"')


def test_a_page_s_statements_are_captured_and_replayed_with_its_rows():
    many_papers(3, at=NOW)

    captured = floors.capture(Client().get, "/papers/?category=cs.CL")
    elapsed, rows = floors.replay(captured.statements)

    assert captured.status == 200
    assert captured.statements and all(floors.is_read(sql) for sql in captured.statements)
    assert any("cs.CL" in sql for sql in captured.statements)  # the request's own values, bound
    assert rows >= 3  # the three papers at least, as the page fetched them
    assert elapsed > 0


def test_every_timed_scenario_gets_a_floor_and_a_ratio():
    many_papers(2, at=NOW)
    plan = [
        Scenario("list", "library", ["/papers/"]),
        Scenario("recomputed", "overview", ["/"], clear_cache=True),
        Scenario("api", "api-list", ["/api/v1/papers/"]),
    ]
    results = [{"in_process": {"p50_ms": 40.0}} for _ in plan]

    rows = floors.measure(plan, results, runs=3)

    assert [row["name"] for row in rows] == ["list", "api"]  # the scenario that drops the cache is not replayed
    for row in rows:
        assert row["floor"]["runs"] == 3 and row["floor"]["p50_ms"] > 0
        assert row["ratio"] == pytest.approx(40.0 / row["floor"]["p50_ms"])
    assert results[0]["floor"] is rows[0] and "floor" not in results[1]
    assert len(floors.lines(rows)) == 3 + len(rows)


def test_a_request_without_sql_has_no_floor_and_no_verdict():
    row = {"name": "cached", "statements": 0, "floor": None, "page_p50_ms": 2.0, "ratio": None, "meets_target": None}

    assert floors.lines([row])[-1].endswith("no SQL")
