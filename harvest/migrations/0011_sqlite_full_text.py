"""SQLite's full-text index: an FTS5 table of every paper's title and abstract.

Until now SQLite searched with `icontains` per word: no phrases, no OR or
exclusions, "pose" inside "proposed", and no ranking. The FTS5 table gives
whole words, Porter stems (as PostgreSQL's english configuration stems) and
bm25 ranking; harvest.search_syntax reads the query, harvest.search_index
keeps the table filled after ingest as it fills PostgreSQL's stored vector.

The table keeps its own copy of the text (not an external-content table over
harvest_paper): the index pass can then replace a paper's row without knowing
what the row said, and Django rebuilding harvest_paper on SQLite for a later
migration leaves the index intact. Papers stored before this migration are
copied in here. PostgreSQL is untouched.
"""

from django.db import migrations

SQLITE_FORWARD = [
    "CREATE VIRTUAL TABLE IF NOT EXISTS harvest_paper_fts USING fts5(title, abstract, tokenize = 'porter unicode61')",
    "INSERT INTO harvest_paper_fts (rowid, title, abstract) SELECT id, title, abstract FROM harvest_paper",
]
SQLITE_BACKWARD = ["DROP TABLE IF EXISTS harvest_paper_fts"]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "sqlite":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("harvest", "0010_version_discovered_covering_index"),
    ]

    operations = [
        migrations.RunPython(_run(SQLITE_FORWARD), _run(SQLITE_BACKWARD), elidable=False),
    ]
