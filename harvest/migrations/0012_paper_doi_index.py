"""PostgreSQL: an index of the papers' DOIs for the library's search box.

A DOI typed into the search box leads to the paper that carries it
(portal.arxiv_ids.papers_with_doi). A paper's `doi` holds one or more DOIs
separated by spaces and compared without case, so the index is a GIN index of
the lower-cased DOIs as an array, over the papers that have one (most new
papers have none yet, and the partial predicate spares their inserts).
Without it each such search read every row of the library. Built
CONCURRENTLY, so outside a transaction, as migration 0007's index was. SQLite
scans its few thousand papers instead.
"""

from django.db import migrations

POSTGRES_FORWARD = [
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS paper_doi_words_idx ON harvest_paper "
    "USING GIN (regexp_split_to_array(lower(doi), '\\s+')) WHERE doi <> ''",
]
POSTGRES_BACKWARD = ["DROP INDEX CONCURRENTLY IF EXISTS paper_doi_words_idx"]


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
        ("harvest", "0011_sqlite_full_text"),
    ]

    operations = [
        migrations.RunPython(_run(POSTGRES_FORWARD), _run(POSTGRES_BACKWARD), elidable=False),
    ]
