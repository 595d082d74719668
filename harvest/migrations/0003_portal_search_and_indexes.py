"""Full-text search and the indexes behind the library's sorts and filters.

PostgreSQL only (a vendor check keeps SQLite migrating; SQLite falls back to a
plain substring search and its own row scans):

- `harvest_paper.search_vector`: a stored generated tsvector over title
  (weight A) and abstract (weight B), kept up to date by PostgreSQL itself, with
  a GIN index. It is not a model field, so the ORM never writes it; the library
  reads it through harvest.filters.StoredSearchVector.
- the list orders are `<date> DESC NULLS LAST, id DESC`; the indexes of the
  model are `DESC` (NULLS FIRST on PostgreSQL), so each order gets its own.
- partial indexes for the AI-related and has-revisions filters, and an index on
  UPPER(name) for the case-insensitive author filter.

These are schema objects Django's migration state does not track, so
`makemigrations` stays quiet about them.
"""

from django.db import migrations

POSTGRES_FORWARD = [
    """
    ALTER TABLE harvest_paper ADD COLUMN IF NOT EXISTS search_vector tsvector
    GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
        || setweight(to_tsvector('english'::regconfig, coalesce(abstract, '')), 'B')
    ) STORED
    """,
    "CREATE INDEX IF NOT EXISTS paper_search_vector_idx ON harvest_paper USING GIN (search_vector)",
    "CREATE INDEX IF NOT EXISTS paper_updated_nl_idx ON harvest_paper (updated DESC NULLS LAST, id DESC)",
    "CREATE INDEX IF NOT EXISTS paper_published_nl_idx ON harvest_paper (published DESC NULLS LAST, id DESC)",
    "CREATE INDEX IF NOT EXISTS paper_ai_updated_idx ON harvest_paper (updated DESC NULLS LAST, id DESC) "
    "WHERE ai_related",
    "CREATE INDEX IF NOT EXISTS paper_revised_updated_idx ON harvest_paper (updated DESC NULLS LAST, id DESC) "
    "WHERE version_count > 1",
    "CREATE INDEX IF NOT EXISTS author_name_upper_idx ON harvest_author (UPPER(name))",
]

POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS author_name_upper_idx",
    "DROP INDEX IF EXISTS paper_revised_updated_idx",
    "DROP INDEX IF EXISTS paper_ai_updated_idx",
    "DROP INDEX IF EXISTS paper_published_nl_idx",
    "DROP INDEX IF EXISTS paper_updated_nl_idx",
    "DROP INDEX IF EXISTS paper_search_vector_idx",
    "ALTER TABLE harvest_paper DROP COLUMN IF EXISTS search_vector",
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
        ("harvest", "0002_community_picks"),
    ]

    operations = [
        migrations.RunPython(_run(POSTGRES_FORWARD), _run(POSTGRES_BACKWARD), elidable=False),
    ]
