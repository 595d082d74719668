"""The portable store (SQLite and any other backend), through the ORM."""

from __future__ import annotations

from harvest.models import Author, Authorship, Paper, PaperCategory, Version
from harvest.stores.rows import (
    IN_CHUNK,
    PAPER_FIELDS,
    VERSION_FIELDS,
    VERSION_TEXT,
    PaperRow,
    VersionRow,
    author_names,
    chunked,
    link_rows,
)


class OrmStore:
    """The portable store (SQLite and any other backend), through the ORM."""

    # No row stamps here: batches are never planned ahead (harvest/pipeline.py).
    checks_stamps = False

    def lock(self, *, durable: bool = True) -> None:
        """SQLite writers already take turns (one writer at a time)."""

    def load_papers(self, arxiv_ids: list[str]) -> tuple[dict[str, PaperRow], None]:
        existing = {}
        for ids in chunked(arxiv_ids, IN_CHUNK):
            for row in Paper.objects.filter(arxiv_id__in=ids).values_list(
                "pk", "arxiv_id", "included_at", *PAPER_FIELDS
            ):
                existing[row[1]] = PaperRow(*row)
        return existing, None

    def load_versions(self, paper_ids: list[int]) -> dict[int, dict[int, VersionRow]]:
        known: dict[int, dict[int, VersionRow]] = {}
        for ids in chunked(paper_ids, IN_CHUNK):
            rows = Version.objects.filter(paper_id__in=ids).values_list(
                "pk", "paper_id", "number", "submitted", "title"
            )
            for row in rows:
                known.setdefault(row[1], {})[row[2]] = VersionRow(*row)
        return known

    def insert_papers(self, papers: list[PaperRow]) -> None:
        objects = [
            Paper(arxiv_id=p.arxiv_id, included_at=p.included_at, **dict(zip(PAPER_FIELDS, p.values(), strict=True)))
            for p in papers
        ]
        Paper.objects.bulk_create(
            objects, update_conflicts=True, unique_fields=["arxiv_id"], update_fields=["arxiv_id"]
        )
        for paper, stored in zip(papers, objects, strict=True):
            paper.pk = stored.pk

    def update_papers(self, papers: list[PaperRow]) -> None:
        objects = [Paper(pk=p.pk, **dict(zip(PAPER_FIELDS, p.values(), strict=True))) for p in papers]
        Paper.objects.bulk_update(objects, PAPER_FIELDS, batch_size=500)

    def update_version_text(self, versions: list[VersionRow]) -> None:
        objects = [Version(pk=v.pk, **{name: getattr(v, name) for name in VERSION_TEXT}) for v in versions]
        Version.objects.bulk_update(objects, VERSION_TEXT, batch_size=500)

    def update_version_dates(self, rows: list[tuple]) -> None:
        """(id, submitted, size, source_type) of versions stored without a date."""
        for pk, submitted, size, source_type in rows:
            Version.objects.filter(pk=pk, submitted__isnull=True).update(
                submitted=submitted, size=size, source_type=source_type
            )

    def insert_versions(self, rows: list[tuple]) -> list[int]:
        objects = [Version(**dict(zip(VERSION_FIELDS, row, strict=True))) for row in rows]
        Version.objects.bulk_create(
            objects, update_conflicts=True, unique_fields=["paper", "number"], update_fields=["number"]
        )
        return [v.pk for v in objects]

    def replace_links(self, papers: list[PaperRow], *, known: list[int], author_ids: dict[str, int]) -> None:
        """(Re)write the indexed author and category rows of these papers;
        `author_ids`: ids of some of their names, found earlier (authors are never deleted)."""
        for ids in chunked(known, IN_CHUNK):
            Authorship.objects.filter(paper_id__in=ids).delete()
            PaperCategory.objects.filter(paper_id__in=ids).delete()
        authorships, categories = link_rows(papers)
        author_ids = dict(author_ids)
        names = [name for name in author_names(papers) if name not in author_ids]
        for chunk in chunked(names, IN_CHUNK):
            Author.objects.bulk_create([Author(name=name) for name in chunk], ignore_conflicts=True)
            author_ids.update(Author.objects.filter(name__in=chunk).values_list("name", "id"))
        Authorship.objects.bulk_create(
            [
                Authorship(paper_id=pid, author_id=author_ids[name], position=pos, affiliation=affiliation)
                for pid, pos, name, affiliation in authorships
            ],
            batch_size=5000,
        )
        PaperCategory.objects.bulk_create(
            [PaperCategory(paper_id=pid, category=code, is_primary=primary) for pid, code, primary in categories],
            batch_size=5000,
        )
