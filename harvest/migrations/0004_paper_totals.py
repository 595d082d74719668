"""Exact library totals without counting the library.

The overview's totals (papers, AI-related, with revisions) counted a million
rows each time they were recomputed (about a second at one million papers,
once a minute). PostgreSQL now keeps them itself: statement-level triggers on
harvest_paper append one row of differences per INSERT, UPDATE, DELETE or COPY
statement (from its transition tables) to `harvest_paper_totals`, and a
TRUNCATE empties it. The totals are the sums of that table, which
portal.stats.overview.totals() reads and now and then folds into one row.
Appending instead of updating one counter row means concurrent writers never
wait for each other.

PostgreSQL only, like migration 0003: SQLite keeps counting its (small) table.
The table is not a model, so `makemigrations` stays quiet about it.
"""

from django.db import migrations

POSTGRES_FORWARD = [
    """
    CREATE TABLE IF NOT EXISTS harvest_paper_totals (
        id bigserial PRIMARY KEY,
        papers bigint NOT NULL,
        ai_related bigint NOT NULL,
        revised bigint NOT NULL
    )
    """,
    """
    CREATE OR REPLACE FUNCTION harvest_paper_totals_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO harvest_paper_totals (papers, ai_related, revised)
        SELECT count(*), count(*) FILTER (WHERE ai_related), count(*) FILTER (WHERE version_count > 1)
        FROM new_rows HAVING count(*) > 0;
        RETURN NULL;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION harvest_paper_totals_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO harvest_paper_totals (papers, ai_related, revised)
        SELECT -count(*), -count(*) FILTER (WHERE ai_related), -count(*) FILTER (WHERE version_count > 1)
        FROM old_rows HAVING count(*) > 0;
        RETURN NULL;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION harvest_paper_totals_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO harvest_paper_totals (papers, ai_related, revised)
        SELECT 0, n.ai - o.ai, n.revised - o.revised
        FROM (SELECT count(*) FILTER (WHERE ai_related) AS ai, count(*) FILTER (WHERE version_count > 1) AS revised
              FROM new_rows) n,
             (SELECT count(*) FILTER (WHERE ai_related) AS ai, count(*) FILTER (WHERE version_count > 1) AS revised
              FROM old_rows) o
        WHERE n.ai <> o.ai OR n.revised <> o.revised;
        RETURN NULL;
    END $$
    """,
    """
    CREATE OR REPLACE FUNCTION harvest_paper_totals_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM harvest_paper_totals;
        RETURN NULL;
    END $$
    """,
    "DROP TRIGGER IF EXISTS harvest_paper_totals_insert ON harvest_paper",
    "DROP TRIGGER IF EXISTS harvest_paper_totals_delete ON harvest_paper",
    "DROP TRIGGER IF EXISTS harvest_paper_totals_update ON harvest_paper",
    "DROP TRIGGER IF EXISTS harvest_paper_totals_truncate ON harvest_paper",
    "CREATE TRIGGER harvest_paper_totals_insert AFTER INSERT ON harvest_paper REFERENCING NEW TABLE AS new_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION harvest_paper_totals_insert()",
    "CREATE TRIGGER harvest_paper_totals_delete AFTER DELETE ON harvest_paper REFERENCING OLD TABLE AS old_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION harvest_paper_totals_delete()",
    "CREATE TRIGGER harvest_paper_totals_update AFTER UPDATE ON harvest_paper "
    "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION harvest_paper_totals_update()",
    "CREATE TRIGGER harvest_paper_totals_truncate AFTER TRUNCATE ON harvest_paper "
    "FOR EACH STATEMENT EXECUTE FUNCTION harvest_paper_totals_truncate()",
    # Papers stored before this migration.
    "DELETE FROM harvest_paper_totals",
    "INSERT INTO harvest_paper_totals (papers, ai_related, revised) "
    "SELECT count(*), count(*) FILTER (WHERE ai_related), count(*) FILTER (WHERE version_count > 1) FROM harvest_paper",
]

POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS harvest_paper_totals_insert ON harvest_paper",
    "DROP TRIGGER IF EXISTS harvest_paper_totals_delete ON harvest_paper",
    "DROP TRIGGER IF EXISTS harvest_paper_totals_update ON harvest_paper",
    "DROP TRIGGER IF EXISTS harvest_paper_totals_truncate ON harvest_paper",
    "DROP FUNCTION IF EXISTS harvest_paper_totals_insert()",
    "DROP FUNCTION IF EXISTS harvest_paper_totals_delete()",
    "DROP FUNCTION IF EXISTS harvest_paper_totals_update()",
    "DROP FUNCTION IF EXISTS harvest_paper_totals_truncate()",
    "DROP TABLE IF EXISTS harvest_paper_totals",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("harvest", "0003_portal_search_and_indexes"),
    ]

    operations = [
        migrations.RunPython(_run(POSTGRES_FORWARD), _run(POSTGRES_BACKWARD), elidable=False),
    ]
