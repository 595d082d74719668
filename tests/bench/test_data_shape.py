"""bench/data.py at a tiny scale: the synthetic library has the documented
shape (bench/library.py) and fills every column the pages rely on, through the
project's real schema and migrations."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from bench import common
from bench.rows import PAPER_COLUMNS, ChunkWriter, World
from harvest.source_records import split_arxiv_id
from tests.conftest import PROJECT_ROOT, database_url_of_current_connection

NOW = datetime(2026, 1, 15, 8, 0, tzinfo=UTC)
PAPERS = 2000
DAILY = 6  # 2,000 papers over about a year, so versions have time to appear


def world() -> World:
    return World(
        papers=PAPERS,
        seed=7,
        now=NOW,
        daily=DAILY,
        ai_categories=frozenset(settings.PAPERTRAIL_AI_CATEGORIES),
        hf_source_id=1,
        prompt_version="p1",
        model="m",
    )


def test_rows_are_reproducible_from_the_seed_and_fill_every_paper_column():
    first = ChunkWriter(world(), 0, 0, 500).rows()
    again = ChunkWriter(world(), 0, 0, 500).rows()
    assert first.papers == again.papers
    assert first.versions == again.versions
    assert first.authorships == again.authorships
    other_seed = ChunkWriter(World(**{**world().__dict__, "seed": 8}), 0, 0, 500).rows()
    assert [p[2] for p in other_seed.papers] != [p[2] for p in first.papers]
    columns = dict.fromkeys(PAPER_COLUMNS, 0)
    for paper in first.papers:
        for name, value in zip(PAPER_COLUMNS, paper, strict=True):
            columns[name] += value not in ("", None)
    optional = {"comments", "journal_ref", "doi", "license", "code_url", "venue"}
    assert all(count == 500 for name, count in columns.items() if name not in optional and name != "ai_related")
    assert all(count > 0 for count in columns.values())
    assert all(paper[12] <= paper[13] <= NOW and paper[12] <= paper[14] for paper in first.papers)


def test_arxiv_ids_are_distinct_and_well_formed_across_month_boundaries():
    library = world()
    grid = library.timeline.inclusion_grid
    ids = [library.arxiv_id(index, grid(index), "cs.LG") for index in range(PAPERS)]
    assert len(set(ids)) == PAPERS
    assert all(split_arxiv_id(arxiv_id) == (arxiv_id, None) for arxiv_id in ids)


def test_the_library_needs_postgresql_and_says_so(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "sqlite:///library.sqlite3")
    with pytest.raises(SystemExit, match="needs PostgreSQL"):
        common.database_url()
    monkeypatch.delenv("DATABASE_URL")
    assert common.database_url() == common.DEFAULT_DATABASE_URL


@pytest.fixture
def built_library():
    """bench.data run as `make bench-data` runs it, into a scratch database next
    to the test database; yields a psycopg connection to it (on PostgreSQL)."""
    if connection.vendor != "postgresql":
        yield None
        return
    base = database_url_of_current_connection()
    url = base.rsplit("/", 1)[0] + f"/{connection.settings_dict['NAME']}_shape"
    env = {**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(PROJECT_ROOT)}
    command = [sys.executable, "-m", "bench", "data", "--scale", str(PAPERS), "--daily", str(DAILY), "--seed", "7"]
    command += ["--now", NOW.strftime("%Y-%m-%dT%H:%M")]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=PROJECT_ROOT, check=False)
    assert done.returncode == 0, done.stderr
    conn = psycopg.connect(common.psycopg_url(url))
    try:
        yield conn
    finally:
        conn.close()
        with psycopg.connect(common.psycopg_url(common.maintenance_url(url)), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{common.database_name(url)}" WITH (FORCE)')


def scalar(conn, sql: str, params=()):
    return conn.execute(sql, params).fetchone()[0]


@pytest.mark.django_db
@pytest.mark.integration
def test_the_library_has_the_documented_shape_through_the_real_schema(built_library):
    if connection.vendor != "postgresql":
        # COPY, the stored search vector and the GIN index are PostgreSQL's:
        # on SQLite the build refuses with a message instead of half working.
        env = {**os.environ, "DATABASE_URL": database_url_of_current_connection(), "PYTHONPATH": str(PROJECT_ROOT)}
        done = subprocess.run(
            [sys.executable, "-m", "bench", "data", "--scale", "200"],
            capture_output=True,
            text=True,
            env=env,
            cwd=PROJECT_ROOT,
            check=False,
        )
        assert done.returncode != 0
        assert "needs PostgreSQL" in done.stderr
        return
    conn = built_library
    assert scalar(conn, "SELECT count(*) FROM harvest_paper") == PAPERS
    # Denormalised fields agree with the rows they summarise.
    assert (
        scalar(
            conn,
            "SELECT count(*) FROM harvest_paper p JOIN LATERAL (SELECT count(*) n, max(number) m, "
            "min(submitted) FILTER (WHERE number = 1) v1, max(submitted) last FROM harvest_version v "
            "WHERE v.paper_id = p.id) v ON true WHERE v.n <> p.version_count OR v.m <> p.latest_version "
            "OR v.v1 <> p.published OR v.last <> p.updated",
        )
        == 0
    )
    assert (
        scalar(
            conn,
            "SELECT count(*) FROM harvest_paper p WHERE p.authors <> (SELECT jsonb_agg(a.name ORDER BY s.position) "
            "FROM harvest_authorship s JOIN harvest_author a ON a.id = s.author_id WHERE s.paper_id = p.id) "
            "OR p.categories <> (SELECT jsonb_agg(c.category ORDER BY c.is_primary DESC, c.id) "
            "FROM harvest_papercategory c WHERE c.paper_id = p.id) OR p.primary_category <> p.categories->>0",
        )
        == 0
    )
    # Every column the pages show is filled; the search vector filled itself.
    assert (
        scalar(
            conn,
            "SELECT count(*) FROM harvest_paper WHERE title = '' OR abstract = '' OR submitter = '' "
            "OR search_vector IS NULL OR published IS NULL OR updated IS NULL OR primary_category = ''",
        )
        == 0
    )
    ai = list(settings.PAPERTRAIL_AI_CATEGORIES)
    assert scalar(conn, "SELECT count(*) FROM harvest_paper WHERE ai_related <> (categories ?| %s)", [ai]) == 0
    # Versions: most papers one or two, some three or more.
    versions = Counter(dict(conn.execute("SELECT version_count, count(*) FROM harvest_paper GROUP BY 1")))
    assert 0.5 < versions[1] / PAPERS < 0.9
    assert versions[2] > 0.1 * PAPERS
    assert sum(n for count, n in versions.items() if count >= 3) > 0.02 * PAPERS
    # Cross-lists: most papers have one; non-CS primaries are cross-listed to cs.
    cross = scalar(conn, "SELECT count(*) FROM harvest_paper WHERE jsonb_array_length(categories) > 1")
    assert 0.5 < cross / PAPERS < 0.8
    assert (
        scalar(
            conn,
            "SELECT count(*) FROM harvest_paper WHERE primary_category NOT LIKE 'cs.%%' "
            "AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(categories) c WHERE c LIKE 'cs.%%')",
        )
        == 0
    )
    # Authors: shared with a long tail.
    per_author = [n for (n,) in conn.execute("SELECT count(*) FROM harvest_authorship GROUP BY author_id ORDER BY 1")]
    assert per_author[-1] >= 15
    assert sum(1 for n in per_author if n == 1) / len(per_author) > 0.5
    # Dates: the last 24 hours hold about the daily volume; nothing in the future.
    recent = scalar(conn, "SELECT count(*) FROM harvest_paper WHERE included_at > %s - interval '1 day'", [NOW])
    assert DAILY / 3 <= recent <= DAILY * 3
    assert scalar(conn, "SELECT max(greatest(included_at, updated)) FROM harvest_paper") <= NOW
    # Picks, guided readings and harvest runs exist, and the sequences continue past the loaded ids.
    assert scalar(conn, "SELECT count(*) FROM harvest_communitypick") > 0
    assert scalar(conn, "SELECT count(*) FROM digests_guidedreading WHERE status = 'done'") > 0
    assert scalar(conn, "SELECT count(*) FROM harvest_harvestrun") > 0
    assert scalar(conn, "SELECT nextval('harvest_paper_id_seq')") > PAPERS
    # Full-text queries of each selectivity tier find what their tier promises.
    tiers = scalar(conn, "SELECT value FROM bench_library WHERE key = 'query_tiers'")
    found = {
        tier: scalar(
            conn,
            "SELECT count(*) FROM harvest_paper WHERE search_vector @@ websearch_to_tsquery('english', %s)",
            [spec["q"]],
        )
        for tier, spec in tiers.items()
    }
    assert found["low"] > 0.1 * PAPERS
    assert 0 < found["medium"] < 0.05 * PAPERS
    assert found["high"] < found["medium"]
