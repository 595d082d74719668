"""The set-based store for PostgreSQL: new rows COPied straight into their
tables under a transaction-level write lock, updates through staging tables
and one UPDATE ... FROM per table."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from django.db import connection

from harvest.stores.rows import PAPER_FIELDS, VERSION_FIELDS, PaperRow, VersionRow, author_names, link_rows

# SQL below is built only from the constant column and table names in this
# module (hence the S608 waivers); values always travel as parameters or COPY.
#
# Staging tables of the PostgreSQL store's updates: temporary (private to the
# session), dropped when the transaction that created them ends, emptied
# before each use because one transaction may call the upsert more than once.
_STAGING = {
    "pt_stage_paper": "id bigint, arxiv_id text, included_at timestamptz, title text, abstract text, authors jsonb, "
    "affiliations jsonb, categories jsonb, primary_category text, comments text, journal_ref text, doi text, "
    "license text, submitter text, published timestamptz, updated timestamptz, ai_related boolean, "
    "latest_version smallint, version_count smallint, search_pending boolean, code_url text, venue text",
    "pt_stage_version": "id bigint, title text, abstract text, authors text, comments text",
}
_PAPER_COLUMNS = ", ".join(("arxiv_id", "included_at", *PAPER_FIELDS))
_VERSION_COLUMNS = ", ".join(VERSION_FIELDS)

# Column type oids of each (table, column list) the store COPies into, and the
# identity sequence of each table it draws ids from: looked up once a process.
_COLUMN_TYPES: dict[tuple[str, str], list[int]] = {}
_SEQUENCES: dict[str, str] = {}

# Unit separator: no arXiv XML can carry it (XML 1.0 forbids the character).
_SEPARATOR = "\x1f"


def _text_list(values: list[str]) -> tuple[str, list]:
    """SQL for a text[] parameter and its value. psycopg dumps a list element
    by element; one string split by PostgreSQL costs a tenth of that. A value holding the separator
    falls back to the list."""
    if any(_SEPARATOR in value for value in values):
        return "%s::text[]", [values]
    return "string_to_array(%s, chr(31))", [_SEPARATOR.join(values)]


# Author name -> id for a list of names ({names}: a text[] expression): one
# probe of the unique (UPPER(name), name) index (migration 0007) per name.
# LATERAL ... LIMIT 1 keeps it so. Joined plainly, a page's thousands of names
# made the planner hash the whole author table instead, a cost that grows with
# the library and that statistics taken while the table was small make worse
# (docs/decisions.md, "Author look-up").
AUTHOR_IDS_SQL = (
    "SELECT n.name, a.id FROM unnest({names}) AS n(name) CROSS JOIN LATERAL ("
    "SELECT id FROM harvest_author WHERE UPPER(name) = UPPER(n.name) AND name = n.name LIMIT 1) AS a"
)

# The key of the transaction-level advisory lock every PostgreSQL upsert takes
# before it reads the library, or checks that what it read ahead still holds
# ("PTup"): writers of papers, versions and authors take turns, one
# transaction at a time, so what a batch read is still true when it writes.
# That is what lets new rows go straight into their tables
# by COPY, with ids drawn from the tables' own sequences, instead of through
# staging tables and INSERT ... ON CONFLICT (a third of the write time).
# Batches are short (one page, one snapshot batch), and arXiv's sources are
# the only writers, so nobody waits long.
_WRITE_LOCK = 0x50547570

# A paper row's stamp: every write of a row makes a new row version, with the
# writing (sub)transaction's id (xmin) and a new place (ctid), so equal stamps
# mean that no paper a plan was made from has been stored or changed since
# (services._still_current); ctid also tells two writes of one transaction apart.
_STAMP = "xmin::text || ctid::text"


class PostgresStore:
    """The set-based store for PostgreSQL: new rows go over COPY into their
    tables, updates through one staged UPDATE ... FROM per table; nothing is
    instantiated per row but a tuple."""

    def __init__(self) -> None:
        self.cursor = connection.cursor()
        self.ready: set[str] = set()

    def _stage(self, table: str) -> None:
        if table not in self.ready:
            self.cursor.execute(f"CREATE TEMPORARY TABLE IF NOT EXISTS {table} ({_STAGING[table]}) ON COMMIT DROP")
            self.ready.add(table)
        self.cursor.execute(f"TRUNCATE {table}")

    def _copy(self, table: str, columns: str, rows: Iterable[tuple]) -> None:
        """COPY in binary format with the columns' types set up front: psycopg
        then formats each value with a fixed dumper, a quarter of the cost of
        text format, where every value's dumper is looked up."""
        types = _COLUMN_TYPES.get((table, columns))
        if types is None:
            names = [name.strip() for name in columns.split(",")]
            self.cursor.execute(
                "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass AND attname = ANY(%s)",
                [table, names],
            )
            oids = dict(self.cursor.fetchall())
            types = _COLUMN_TYPES[(table, columns)] = [oids[name] for name in names]
        # psycopg's own cursor (Django's has no COPY), its errors as Django's.
        copy_sql = f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)"
        with connection.wrap_database_errors, self.cursor.cursor.copy(copy_sql) as copy:
            copy.set_types(types)
            for row in rows:
                copy.write_row(row)

    def _next_ids(self, table: str, count: int) -> list[int]:
        """`count` ids from the table's own identity sequence."""
        if table not in _SEQUENCES:
            self.cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
            _SEQUENCES[table] = self.cursor.fetchone()[0]
        self.cursor.execute("SELECT nextval(%s::regclass) FROM generate_series(1, %s)", [_SEQUENCES[table], count])
        return [row[0] for row in self.cursor.fetchall()]

    checks_stamps = True

    def lock(self, *, durable: bool = True) -> None:
        """Take the write lock. `durable=False`: the transaction also commits
        without waiting for its WAL to reach the disk (synchronous_commit off,
        the whole transaction the upsert runs in). A crash can then lose the
        last fraction of a second of commits, never corrupt them; a harvest
        page's transaction holds the run's checkpoint too, so a lost page is
        lost with the checkpoint that says it was stored and the next run
        fetches it again, and any later ordinary commit makes it durable.
        The wait cost about a tenth of an ingest's time and most of its spread
        from run to run (docs/decisions.md)."""
        if durable:
            self.cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITE_LOCK])
        else:
            self.cursor.execute(
                "SELECT set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(%s)", [_WRITE_LOCK]
            )

    def load_papers(self, arxiv_ids: list[str]) -> tuple[dict[str, PaperRow], dict[str, str]]:
        """The stored rows of these papers, and the stamp (_STAMP) of each."""
        wanted, params = _text_list(arxiv_ids)
        self.cursor.execute(
            f"SELECT id, {_PAPER_COLUMNS}, {_STAMP} FROM harvest_paper WHERE arxiv_id = ANY({wanted})",  # noqa: S608
            params,
        )
        existing, stamps = {}, {}
        for row in self.cursor.fetchall():
            paper = PaperRow(*row[:-1])
            paper.authors, paper.categories = json.loads(paper.authors), json.loads(paper.categories)
            paper.affiliations = json.loads(paper.affiliations)
            existing[paper.arxiv_id] = paper
            stamps[paper.arxiv_id] = row[-1]
        return existing, stamps

    def stamps(self, arxiv_ids: list[str]) -> dict[str, str]:
        """Paper -> stamp of its row, for the stored ones of these papers."""
        wanted, params = _text_list(arxiv_ids)
        self.cursor.execute(
            f"SELECT arxiv_id, {_STAMP} FROM harvest_paper WHERE arxiv_id = ANY({wanted})",  # noqa: S608
            params,
        )
        return dict(self.cursor.fetchall())

    def load_versions(self, paper_ids: list[int]) -> dict[int, dict[int, VersionRow]]:
        known: dict[int, dict[int, VersionRow]] = {}
        if paper_ids:
            self.cursor.execute(
                "SELECT id, paper_id, number, submitted, title FROM harvest_version WHERE paper_id = ANY(%s::bigint[])",
                [paper_ids],
            )
            for row in self.cursor.fetchall():
                known.setdefault(row[1], {})[row[2]] = VersionRow(*row)
        return known

    def _paper_rows(self, papers: list[PaperRow]) -> Iterator[tuple]:
        for p in papers:
            yield (
                p.pk,
                p.arxiv_id,
                p.included_at,
                p.title,
                p.abstract,
                p.authors,
                p.affiliations,
                p.categories,
                p.primary_category,
                p.comments,
                p.journal_ref,
                p.doi,
                p.license,
                p.submitter,
                p.published,
                p.updated,
                p.ai_related,
                p.latest_version,
                p.version_count,
                p.search_pending,
                p.code_url,
                p.venue,
            )

    def insert_papers(self, papers: list[PaperRow]) -> None:
        for paper, pk in zip(papers, self._next_ids("harvest_paper", len(papers)), strict=True):
            paper.pk = pk
        self._copy("harvest_paper", f"id, {_PAPER_COLUMNS}", self._paper_rows(papers))

    def update_papers(self, papers: list[PaperRow]) -> None:
        self._stage("pt_stage_paper")
        self._copy("pt_stage_paper", f"id, {_PAPER_COLUMNS}", self._paper_rows(papers))
        assignments = ", ".join(f"{name} = s.{name}" for name in PAPER_FIELDS if name != "search_pending")
        # A paper stays pending until the indexer has read its current text.
        pending = (
            "search_pending = p.search_pending OR s.search_pending "
            "OR p.title IS DISTINCT FROM s.title OR p.abstract IS DISTINCT FROM s.abstract"
        )
        self.cursor.execute(
            f"UPDATE harvest_paper p SET {assignments}, {pending} FROM pt_stage_paper s WHERE p.id = s.id"  # noqa: S608
        )

    def update_version_text(self, versions: list[VersionRow]) -> None:
        self._stage("pt_stage_version")
        self._copy(
            "pt_stage_version",
            "id, title, abstract, authors, comments",
            ((v.pk, v.title, v.abstract, v.authors, v.comments) for v in versions),
        )
        # Only where still empty: a batch planned ahead may name a version
        # whose text the batch before it filled (its paper's row unchanged).
        self.cursor.execute(
            "UPDATE harvest_version v SET title = s.title, abstract = s.abstract, authors = s.authors, "
            "comments = s.comments FROM pt_stage_version s WHERE v.id = s.id AND v.title = ''"
        )

    def update_version_dates(self, rows: list[tuple]) -> None:
        """(id, submitted, size, source_type) of versions stored without a
        date; only where still without one (a plan may be stale)."""
        ids, dates, sizes, types = (list(column) for column in zip(*rows, strict=True))
        self.cursor.execute(
            "UPDATE harvest_version v SET submitted = s.submitted, size = s.size, source_type = s.source_type "
            "FROM unnest(%s::bigint[], %s::timestamptz[], %s::text[], %s::text[]) "
            "AS s(id, submitted, size, source_type) "
            "WHERE v.id = s.id AND v.submitted IS NULL",
            [ids, dates, sizes, types],
        )

    def insert_versions(self, rows: list[tuple]) -> list[int]:
        ids = self._next_ids("harvest_version", len(rows))
        numbered = ((pk, *row) for pk, row in zip(ids, rows, strict=True))
        self._copy("harvest_version", f"id, {_VERSION_COLUMNS}", numbered)
        return ids

    def find_authors(self, names: list[str]) -> dict[str, int]:
        """Ids of those of these author names the library holds."""
        if not names:
            return {}
        wanted, params = _text_list(names)
        self.cursor.execute(AUTHOR_IDS_SQL.format(names=wanted), params)
        return dict(self.cursor.fetchall())

    def _author_ids(self, names: list[str], found: dict[str, int] | None = None) -> dict[str, int]:
        """Ids of these author names, creating the names the library lacks;
        `found`: ids of some of them, looked up earlier (authors are never
        deleted, so an id once found stays right)."""
        found = found or {}
        ids = {name: found[name] for name in names if name in found}
        ids.update(self.find_authors([name for name in names if name not in found]))
        missing = [name for name in names if name not in ids]
        if missing:
            ids.update(zip(missing, self._next_ids("harvest_author", len(missing)), strict=True))
            self._copy("harvest_author", "id, name", ((ids[name], name) for name in missing))
        return ids

    def replace_links(self, papers: list[PaperRow], *, known: list[int], author_ids: dict[str, int]) -> None:
        """(Re)write the indexed author and category rows of these papers;
        `author_ids`: ids of some of their names, found earlier."""
        if known:
            self.cursor.execute("DELETE FROM harvest_authorship WHERE paper_id = ANY(%s::bigint[])", [known])
            self.cursor.execute("DELETE FROM harvest_papercategory WHERE paper_id = ANY(%s::bigint[])", [known])
        authorships, categories = link_rows(papers)
        if authorships:
            ids = self._author_ids(author_names(papers), author_ids)
            self._copy(
                "harvest_authorship",
                "paper_id, author_id, position, affiliation",
                ((paper_id, ids[name], position, affiliation) for paper_id, position, name, affiliation in authorships),
            )
        if categories:
            self._copy("harvest_papercategory", "paper_id, category, is_primary", categories)
