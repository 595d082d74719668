"""Writes to the library: the bulk upsert every source and import goes through.

`paper_upsert_many` decides what a batch of records changes (one set of rules,
in Python, for every database) and hands the rows to a store in
harvest/stores/ that writes them (set-based on PostgreSQL, the ORM elsewhere).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from harvest.importance import code_link, venue_acceptance
from harvest.models import CommunityPick, Paper, Source
from harvest.source_records import PaperRecord
from harvest.sources.base import PickRecord
from harvest.stores import PaperRow, VersionRow, store_for_connection

logger = logging.getLogger(__name__)


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


def is_ai_related(categories: Iterable[str], ai_categories: frozenset[str]) -> bool:
    """`ai_categories`: settings.PAPERTRAIL_AI_CATEGORIES, read once per batch by the upsert."""
    return not ai_categories.isdisjoint(categories)


def merge_duplicates(records: Iterable[PaperRecord]) -> list[PaperRecord]:
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


@dataclass(slots=True)
class LibraryState:
    """What the library held of a batch's papers when it was read: their rows,
    their versions, and the store's stamp of those rows (see PostgresStore.stamps)."""

    existing: dict[str, PaperRow]
    known_versions: dict[int, dict[int, VersionRow]]
    stamps: dict[str, str] | None


@dataclass
class UpsertPlan:
    """What one batch changes, decided from a LibraryState; written by `paper_upsert_many`."""

    state: LibraryState
    result: UpsertResult
    new_papers: list[PaperRow] = field(default_factory=list)
    changed_papers: list[PaperRow] = field(default_factory=list)
    relinks: list[PaperRow] = field(default_factory=list)
    pending_versions: list[tuple[PaperRow, tuple]] = field(default_factory=list)  # (paper, row without paper_id)
    filled_versions: list[VersionRow] = field(default_factory=list)
    # (version id, submitted, size, source_type) of stored versions without a
    # date (first seen in the announcement feed) that a record dates.
    dated_versions: list[tuple] = field(default_factory=list)
    # Ids of the relinked papers' author names that the library held when
    # planned ahead; names missing then are looked up again when written.
    author_ids: dict[str, int] = field(default_factory=dict)


def read_library(store, batch: list[PaperRecord]) -> LibraryState:
    existing, stamps = store.load_papers([r.arxiv_id for r in batch])
    known_versions = store.load_versions([p.pk for p in existing.values()])
    return LibraryState(existing, known_versions, stamps)


def plan_upsert(
    batch: list[PaperRecord], state: LibraryState, *, now: datetime, ai_categories: frozenset[str]
) -> UpsertPlan:
    """Decide what the (merged) batch changes in the library as `state` saw
    it. Plain Python, no database: harvest/pipeline.py runs it in a thread
    while the previous batch is written. Updates the rows of `state` in place."""
    plan = UpsertPlan(state=state, result=UpsertResult(seen=len(batch)))
    result, existing, known_versions = plan.result, state.existing, state.known_versions
    for record in batch:
        paper = existing.get(record.arxiv_id)
        latest = record.latest_version
        if paper is None:
            paper = _new_paper(record, now, ai_categories)
            plan.new_papers.append(paper)
            plan.relinks.append(paper)
            plan.pending_versions.extend((paper, _new_version(v, record, latest, now)) for v in record.versions)
            continue
        have = known_versions.get(paper.pk, {})
        fresh = [v for v in record.versions if v.number not in have]
        plan.pending_versions.extend((paper, _new_version(v, record, latest, now)) for v in fresh)
        filled = _fill_latest_version_text(have, record)
        plan.filled_versions.extend(filled)
        dated = _fill_version_dates(have, record) if have else ()
        plan.dated_versions.extend(dated)
        old_links = (paper.authors, paper.affiliations, paper.categories)
        changed = _apply_record(paper, record, have, fresh, ai_categories)
        if changed:
            plan.changed_papers.append(paper)
            if (paper.authors, paper.affiliations, paper.categories) != old_links:
                plan.relinks.append(paper)
        if fresh:
            result.new_versions += len(fresh)
        elif changed or filled or dated:
            result.updated += 1
        else:
            result.unchanged += 1
    return plan


@transaction.atomic
def paper_upsert_many(
    *,
    records: Iterable[PaperRecord],
    now: datetime | None = None,
    plan: UpsertPlan | None = None,
    durable: bool = True,
) -> UpsertResult:
    """Store what the records say, in bulk: new papers and new versions are
    inserted, known papers are updated only where something changed, and a
    record that brings nothing new writes nothing.

    A record that knows fewer versions than the library (an older snapshot, a
    source that lags) never rolls a paper back: its text is taken only when
    it describes the paper's latest version.

    `plan`: the same records planned ahead (harvest/pipeline.py), outside this
    transaction. It is written only if the library still holds what it was
    planned from (the store's stamps of those papers' rows, compared under
    the write lock); otherwise, as without a plan, the batch is read and
    planned here. A row the stamps do not cover (a version some other
    writer added without touching its paper) makes the plan's write fail on
    a unique constraint, and the batch is planned here too.

    `durable=False`: the caller's transaction commits without waiting for
    the disk (see PostgresStore.lock); only for writes that a crash may lose
    because they are fetched again and a later ordinary commit settles (a
    harvest page, with its run's checkpoint; the run's end is recorded by
    an ordinary commit).
    """
    store = store_for_connection()
    store.lock(durable=durable)
    if plan is not None and _still_current(store, plan):
        try:
            with transaction.atomic():
                return _write(store, plan)
        except IntegrityError as exc:
            logger.info("a batch planned ahead met a row written since; planning it again: %s", exc)
            store = store_for_connection()  # what the failed write set up was rolled back
    batch = merge_duplicates(records)
    if not batch:
        return UpsertResult()
    state = read_library(store, batch)
    plan = plan_upsert(batch, state, now=(now or timezone.now()), ai_categories=settings.PAPERTRAIL_AI_CATEGORIES)
    return _write(store, plan)


def _still_current(store, plan: UpsertPlan) -> bool:
    batch_ids = [*plan.state.existing, *(p.arxiv_id for p in plan.new_papers)]
    return store.stamps(batch_ids) == plan.state.stamps


def _write(store, plan: UpsertPlan) -> UpsertResult:
    result = plan.result
    if plan.new_papers:
        store.insert_papers(plan.new_papers)
        result.new_papers = len(plan.new_papers)
    if plan.changed_papers:
        store.update_papers(plan.changed_papers)
    if plan.filled_versions:
        store.update_version_text(plan.filled_versions)
    if plan.dated_versions:
        store.update_version_dates(plan.dated_versions)
    if plan.pending_versions:
        result.created_version_ids = store.insert_versions([(paper.pk, *row) for paper, row in plan.pending_versions])
    if plan.relinks:
        new_ids = {paper.pk for paper in plan.new_papers}
        known = [p.pk for p in plan.relinks if p.pk not in new_ids]
        store.replace_links(plan.relinks, known=known, author_ids=plan.author_ids)
    return result


def _new_paper(record: PaperRecord, now: datetime, ai_categories: frozenset[str]) -> PaperRow:
    versions = {v.number: v.submitted for v in record.versions}
    published, updated = _dates(versions, record)
    categories = record.categories
    return PaperRow(
        None,
        record.arxiv_id,
        now,
        record.title,
        record.abstract,
        record.authors,
        record.affiliations,
        categories,
        categories[0] if categories else "",
        record.comments,
        record.journal_ref,
        record.doi,
        record.license,
        record.submitter,
        published,
        updated,
        is_ai_related(categories, ai_categories),
        record.latest_version,
        len(versions) or 1,
        True,  # search_pending: harvest.search_index adds it to the full-text index
        code_link(record.abstract, record.comments),
        venue_acceptance(record.comments),
    )


def _apply_record(
    paper: PaperRow, record: PaperRecord, have: dict[int, VersionRow], fresh: list, ai_categories: frozenset[str]
) -> bool:
    """Bring a known paper up to what the record says; True if anything changed."""
    before = paper.values()
    before_title, before_abstract = paper.title, paper.abstract
    dates = {number: version.submitted for number, version in have.items()}
    dates.update({v.number: v.submitted for v in fresh})
    for v in record.versions:
        if dates.get(v.number) is None and v.submitted is not None:
            dates[v.number] = v.submitted
    latest_known = max(dates) if dates else paper.latest_version
    if record.latest_version >= paper.latest_version:
        paper.title = record.title or paper.title
        paper.abstract = record.abstract or paper.abstract
        if record.authors:
            paper.authors, paper.affiliations = record.authors, record.affiliations
        if record.categories:
            paper.categories = record.categories
            paper.primary_category = record.categories[0]
        paper.comments = record.comments
        paper.journal_ref = record.journal_ref
        paper.doi = record.doi
        paper.license = record.license or paper.license
        paper.submitter = record.submitter or paper.submitter
        # The latest version's signals: a revision that drops its link drops it here too.
        paper.code_url = code_link(paper.abstract, paper.comments)
        paper.venue = venue_acceptance(paper.comments)
    published, updated = _dates(dates, record)
    paper.published = published or paper.published
    paper.updated = updated or paper.updated
    paper.latest_version = max(latest_known, paper.latest_version)
    paper.version_count = max(len(dates), paper.version_count)
    paper.ai_related = is_ai_related(paper.categories, ai_categories)
    if (paper.title, paper.abstract) != (before_title, before_abstract):
        paper.search_pending = True
    return before != paper.values()


def _fill_latest_version_text(have: dict[int, VersionRow], record: PaperRecord) -> list[VersionRow]:
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


def _fill_version_dates(have: dict[int, VersionRow], record: PaperRecord) -> list[tuple]:
    """Stored versions without a submission date (the announcement feed
    carries none) take the date, size and source type a record gives."""
    dated = []
    for version in record.versions:
        stored = have.get(version.number)
        if stored is not None and stored.submitted is None and version.submitted is not None:
            stored.submitted = version.submitted
            dated.append((stored.pk, version.submitted, version.size, version.source_type))
    return dated


def _new_version(version, record: PaperRecord, latest: int, now: datetime) -> tuple:
    """A new version row in VERSION_FIELDS order (harvest.stores.rows), without its paper_id;
    `latest`: the record's latest version number (the one whose text it carries)."""
    if version.number == latest:
        text = (record.title, record.abstract, ", ".join(record.authors), record.comments)
    else:
        text = ("", "", "", "")
    return (version.number, version.submitted, version.size, version.source_type, *text, now)


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
    paper_upvotes_refresh(paper_ids=list(paper_ids.values()))
    return len(created)


def paper_upvotes_refresh(*, paper_ids: list[int]) -> int:
    """Copy the most upvotes of each paper's picks onto the paper (which
    recomputes its popularity); rows already right are not written. Returns
    how many changed."""
    top = Coalesce(
        Subquery(
            CommunityPick.objects.filter(paper=OuterRef("pk"))
            .order_by()
            .values("paper")
            .annotate(top=Max("upvotes"))
            .values("top")
        ),
        0,
    )
    return Paper.objects.filter(pk__in=paper_ids).filter(~Q(upvotes=top)).update(upvotes=top)
