"""Fewer index entries per ingested paper.

- Authors: the unique index on name, its varchar_pattern_ops twin (nothing
  filters names with LIKE) and migration 0003's UPPER(name) index become one
  unique index on (UPPER(name), name), which serves the upsert's exact lookups
  and the author filter's case-insensitive ones alike.
- The full-text GIN index leaves out papers whose vector is not computed yet
  (every new paper, until harvest.search_index reaches it): a NULL vector
  matches no query, and `search_vector @@ query` implies it is not NULL, so
  the planner still uses the index for every search. It is built beside the
  old one and swapped in (CONCURRENTLY, so outside a transaction): searches
  keep their index while a large library's is rebuilt, and harvests their
  writes.
"""

import django.db.models.functions.text
from django.db import migrations, models

POSTGRES_FORWARD = [
    "DROP INDEX IF EXISTS author_name_upper_idx",
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS paper_search_vector_new_idx ON harvest_paper USING GIN (search_vector) "
    "WHERE search_vector IS NOT NULL",
    "DROP INDEX CONCURRENTLY IF EXISTS paper_search_vector_idx",
    "ALTER INDEX paper_search_vector_new_idx RENAME TO paper_search_vector_idx",
]
POSTGRES_BACKWARD = [
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS paper_search_vector_old_idx ON harvest_paper USING GIN (search_vector)",
    "DROP INDEX CONCURRENTLY IF EXISTS paper_search_vector_idx",
    "ALTER INDEX paper_search_vector_old_idx RENAME TO paper_search_vector_idx",
    "CREATE INDEX IF NOT EXISTS author_name_upper_idx ON harvest_author (UPPER(name))",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    atomic = False  # CREATE / DROP INDEX CONCURRENTLY

    dependencies = [
        ("harvest", "0006_search_index_after_ingest"),
    ]

    operations = [
        migrations.AlterField(
            model_name="author",
            name="name",
            field=models.CharField(max_length=512),
        ),
        migrations.AddConstraint(
            model_name="author",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Upper("name"), models.F("name"), name="author_name_unique"
            ),
        ),
        migrations.RunPython(_run(POSTGRES_FORWARD), _run(POSTGRES_BACKWARD), elidable=False),
    ]
