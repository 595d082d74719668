"""Writes to the library: the bulk upsert every source and import goes through."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from harvest.models import Author, Authorship, CommunityPick, Paper, PaperCategory, Source, Version
from harvest.records import PaperRecord, VersionRecord
from harvest.sources.base import PickRecord

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Bound on the number of parameters one IN (...) list carries (SQLite allows
# 32,766; PostgreSQL is happy either way).
_IN_CHUNK = 2000

_PAPER_FIELDS = (
    "title",
    "abstract",
    "authors",
    "categories",
    "primary_category",
    "comments",
    "journal_ref",
    "doi",
    "license",
    "submitter",
    "published",
    "updated",
    "ai_related",
    "latest_version",
    "version_count",
)


@dataclass
class UpsertResult:
    seen: int = 0
    new_papers: int = 0
    new_versions: int = 0  # versions added to papers that were already in the library
    updated: int = 0  # known papers whose metadata changed without a new version
    unchanged: int = 0
    created_version_ids: list[int] = field(default_factory=list)

    def add(self, other: UpsertResult) -> None:
        self.seen += other.seen
        self.new_papers += other.new_papers
        self.new_versions += other.new_versions
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.created_version_ids.extend(other.created_version_ids)


def chunked(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def is_ai_related(categories: Iterable[str]) -> bool:
    return not settings.PAPERTRAIL_AI_CATEGORIES.isdisjoint(categories)


def _merge_duplicates(records: Iterable[PaperRecord]) -> list[PaperRecord]:
    """One record per paper: a page may list a paper twice; the record with the
    latest version wins and versions are pooled."""
    by_id: dict[str, PaperRecord] = {}
    for record in records:
        earlier = by_id.get(record.arxiv_id)
        if earlier is None:
            by_id[record.arxiv_id] = record
            continue
        winner, other = (record, earlier) if record.latest_version >= earlier.latest_version else (earlier, record)
        numbers = {v.number for v in winner.versions}
        winner.versions.extend(v for v in other.versions if v.number not in numbers)
        by_id[record.arxiv_id] = winner
    return list(by_id.values())


def _dates(versions: dict[int, datetime | None], record: PaperRecord) -> tuple[datetime | None, datetime | None]:
    published = versions.get(1) or record.published
    latest = max(versions) if versions else None
    updated = (versions.get(latest) if latest else None) or record.updated or published
    return published, updated


@transaction.atomic
def paper_upsert_many(*, records: Iterable[PaperRecord], now: datetime | None = None) -> UpsertResult:
    """Store what the records say, in bulk: new papers and new versions are
    inserted, known papers are updated only where something changed, and a
    record that brings nothing new writes nothing.

    A record that knows fewer versions than the library (an older snapshot, a
    source that lags) never rolls a paper back: its text is taken only when
    it describes the paper's latest version.
    """
    now = now or timezone.now()
    batch = _merge_duplicates(records)
    result = UpsertResult(seen=len(batch))
    if not batch:
        return result

    existing: dict[str, Paper] = {}
    for ids in chunked([r.arxiv_id for r in batch], _IN_CHUNK):
        for paper in Paper.objects.filter(arxiv_id__in=ids):
            existing[paper.arxiv_id] = paper
    known_versions: dict[int, dict[int, Version]] = {}
    for ids in chunked([p.pk for p in existing.values()], _IN_CHUNK):
        for version in Version.objects.filter(paper_id__in=ids).only(
            "id", "paper_id", "number", "submitted", "title", "size"
        ):
            known_versions.setdefault(version.paper_id, {})[version.number] = version

    new_papers: list[Paper] = []
    changed_papers: list[Paper] = []
    relinks: list[tuple[Paper, PaperRecord]] = []
    pending_versions: list[tuple[Paper, VersionRecord, PaperRecord]] = []
    filled_versions: list[Version] = []

    for record in batch:
        paper = existing.get(record.arxiv_id)
        if paper is None:
            paper = _new_paper(record, now)
            new_papers.append(paper)
            relinks.append((paper, record))
            pending_versions.extend((paper, v, record) for v in record.versions)
            continue
        have = known_versions.get(paper.pk, {})
        fresh = [v for v in record.versions if v.number not in have]
        pending_versions.extend((paper, v, record) for v in fresh)
        filled = _fill_latest_version_text(have, record)
        filled_versions.extend(filled)
        old_links = (paper.authors, paper.categories)
        changed = _apply_record(paper, record, have, fresh)
        if changed:
            changed_papers.append(paper)
            if (paper.authors, paper.categories) != old_links:
                relinks.append((paper, record))
        if fresh:
            result.new_versions += len(fresh)
        elif changed or filled:
            result.updated += 1
        else:
            result.unchanged += 1

    if new_papers:
        Paper.objects.bulk_create(
            new_papers, update_conflicts=True, unique_fields=["arxiv_id"], update_fields=["arxiv_id"]
        )
        result.new_papers = len(new_papers)
    if changed_papers:
        Paper.objects.bulk_update(changed_papers, _PAPER_FIELDS, batch_size=500)
    if filled_versions:
        Version.objects.bulk_update(filled_versions, ["title", "abstract", "authors", "comments"], batch_size=500)
    if pending_versions:
        versions = [_new_version(paper, v, record, now) for paper, v, record in pending_versions]
        Version.objects.bulk_create(
            versions, update_conflicts=True, unique_fields=["paper", "number"], update_fields=["number"]
        )
        result.created_version_ids = [v.pk for v in versions]
    if relinks:
        _replace_links(relinks)
    return result


def _new_paper(record: PaperRecord, now: datetime) -> Paper:
    versions = {v.number: v.submitted for v in record.versions}
    published, updated = _dates(versions, record)
    return Paper(
        arxiv_id=record.arxiv_id,
        title=record.title,
        abstract=record.abstract,
        authors=record.authors,
        categories=record.categories,
        primary_category=record.categories[0] if record.categories else "",
        comments=record.comments,
        journal_ref=record.journal_ref,
        doi=record.doi,
        license=record.license,
        submitter=record.submitter,
        published=published,
        updated=updated,
        included_at=now,
        ai_related=is_ai_related(record.categories),
        latest_version=record.latest_version,
        version_count=len(versions) or 1,
    )


def _apply_record(paper: Paper, record: PaperRecord, have: dict[int, Version], fresh: list[VersionRecord]) -> bool:
    """Bring a known paper up to what the record says; True if anything changed."""
    before = tuple(getattr(paper, name) for name in _PAPER_FIELDS)
    dates = {number: version.submitted for number, version in have.items()}
    dates.update({v.number: v.submitted for v in fresh})
    for v in record.versions:
        if dates.get(v.number) is None and v.submitted is not None:
            dates[v.number] = v.submitted
    latest_known = max(dates) if dates else paper.latest_version
    if record.latest_version >= paper.latest_version:
        paper.title = record.title or paper.title
        paper.abstract = record.abstract or paper.abstract
        paper.authors = record.authors or paper.authors
        if record.categories:
            paper.categories = record.categories
            paper.primary_category = record.categories[0]
        paper.comments = record.comments
        paper.journal_ref = record.journal_ref
        paper.doi = record.doi
        paper.license = record.license or paper.license
        paper.submitter = record.submitter or paper.submitter
    published, updated = _dates(dates, record)
    paper.published = published or paper.published
    paper.updated = updated or paper.updated
    paper.latest_version = max(latest_known, paper.latest_version)
    paper.version_count = max(len(dates), paper.version_count)
    paper.ai_related = is_ai_related(paper.categories)
    return before != tuple(getattr(paper, name) for name in _PAPER_FIELDS)


def _fill_latest_version_text(have: dict[int, Version], record: PaperRecord) -> list[Version]:
    """A stored latest version without text (first seen through a source that
    gives dates only) takes the text of a record describing it."""
    version = have.get(record.latest_version)
    if version is None or version.title or not record.title:
        return []
    version.title = record.title
    version.abstract = record.abstract
    version.authors = ", ".join(record.authors)
    version.comments = record.comments
    return [version]


def _new_version(paper: Paper, version: VersionRecord, record: PaperRecord, now: datetime) -> Version:
    is_latest = version.number == record.latest_version
    return Version(
        paper=paper,
        number=version.number,
        submitted=version.submitted,
        size=version.size,
        source_type=version.source_type,
        title=record.title if is_latest else "",
        abstract=record.abstract if is_latest else "",
        authors=", ".join(record.authors) if is_latest else "",
        comments=record.comments if is_latest else "",
        discovered_at=now,
    )


def _replace_links(relinks: list[tuple[Paper, PaperRecord]]) -> None:
    """(Re)write the indexed author and category rows of these papers."""
    paper_ids = [paper.pk for paper, _ in relinks]
    for ids in chunked(paper_ids, _IN_CHUNK):
        Authorship.objects.filter(paper_id__in=ids).delete()
        PaperCategory.objects.filter(paper_id__in=ids).delete()

    names = sorted({name[:512] for paper, _ in relinks for name in paper.authors})
    author_ids: dict[str, int] = {}
    for chunk in chunked(names, _IN_CHUNK):
        Author.objects.bulk_create([Author(name=name) for name in chunk], ignore_conflicts=True)
        author_ids.update(Author.objects.filter(name__in=chunk).values_list("name", "id"))

    authorships = [
        Authorship(paper_id=paper.pk, author_id=author_ids[name[:512]], position=position)
        for paper, _ in relinks
        for position, name in enumerate(paper.authors)
    ]
    categories = [
        PaperCategory(paper_id=paper.pk, category=code, is_primary=index == 0)
        for paper, _ in relinks
        for index, code in enumerate(dict.fromkeys(paper.categories))
    ]
    Authorship.objects.bulk_create(authorships, batch_size=5000)
    PaperCategory.objects.bulk_create(categories, batch_size=5000)


@transaction.atomic
def community_pick_upsert_many(*, source: Source, picks: Iterable[PickRecord], now: datetime | None = None) -> int:
    """Record community signals for papers already in the library; returns how
    many papers were picked for the first time by this source."""
    now = now or timezone.now()
    by_id = {pick.arxiv_id: pick for pick in picks}
    paper_ids = dict(Paper.objects.filter(arxiv_id__in=list(by_id)).values_list("arxiv_id", "id"))
    missing = set(by_id) - set(paper_ids)
    if missing:
        logger.warning("%d community picks name papers not in the library: %s", len(missing), sorted(missing)[:5])
    existing = {
        pick.paper_id: pick for pick in CommunityPick.objects.filter(source=source, paper_id__in=paper_ids.values())
    }
    created, changed = [], []
    for arxiv_id, paper_id in paper_ids.items():
        record = by_id[arxiv_id]
        pick = existing.get(paper_id)
        if pick is None:
            created.append(
                CommunityPick(
                    paper_id=paper_id,
                    source=source,
                    featured_on=record.featured_on,
                    upvotes=record.upvotes,
                    url=record.url,
                    first_seen_at=now,
                    last_seen_at=now,
                )
            )
            continue
        pick.featured_on = max(pick.featured_on, record.featured_on)
        pick.upvotes = record.upvotes
        pick.url = record.url or pick.url
        pick.last_seen_at = now
        changed.append(pick)
    CommunityPick.objects.bulk_create(created, ignore_conflicts=True)
    CommunityPick.objects.bulk_update(changed, ["featured_on", "upvotes", "url", "last_seen_at"], batch_size=500)
    return len(created)
