"""Writes of the announcement feed: its papers into the library, the day each
listed version was announced, and the announcement itself.

The feed describes a paper only in part (no comments, no version dates), so
its records are completed from what the library holds before they go through
the common upsert (harvest/services.py): a known paper keeps its comments, a
`cross` listing adds its categories to the paper's own. Everything happens
under the upsert's write lock, in the harvest page's transaction.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from harvest.models import Announcement, AnnouncementItem, Paper, Version
from harvest.services import UpsertResult, paper_upsert_many
from harvest.source_records import FeedAnnouncement, ListedItem, PaperRecord, VersionRecord
from harvest.stores import store_for_connection

_STORED_FIELDS = ("arxiv_id", "title", "abstract", "authors", "categories", "comments", "journal_ref", "doi")


def _completed(record: PaperRecord, stored: dict, listed: ListedItem | None) -> PaperRecord:
    """The feed's record of a known paper, with what the feed does not carry
    taken from the library."""
    record.comments = record.comments or stored["comments"]
    record.journal_ref = record.journal_ref or stored["journal_ref"]
    record.doi = record.doi or stored["doi"]
    if listed is not None and listed.announce_type == AnnouncementItem.Type.CROSS:
        record.categories = list(dict.fromkeys([*stored["categories"], *record.categories]))
    if record.latest_version < stored["latest_version"]:
        # A listing of an older version than the library holds: the upsert
        # takes no text from it, so it carries the library's own text (and
        # names the latest version) to add the categories all the same.
        record.title, record.abstract, record.authors = stored["title"], stored["abstract"], stored["authors"]
        record.versions.append(VersionRecord(stored["latest_version"]))
    return record


@transaction.atomic
def announcement_store(
    *, records: list[PaperRecord], announcement: FeedAnnouncement | None, durable: bool = False
) -> UpsertResult:
    """Store one page of the feed; `durable` as for `paper_upsert_many`."""
    store_for_connection().lock(durable=durable)
    listed = {item.arxiv_id: item for item in announcement.items} if announcement else {}
    stored = {
        row["arxiv_id"]: row
        for row in Paper.objects.filter(arxiv_id__in=[r.arxiv_id for r in records]).values(
            *_STORED_FIELDS, "latest_version"
        )
    }
    completed = [
        _completed(r, stored[r.arxiv_id], listed.get(r.arxiv_id)) if r.arxiv_id in stored else r for r in records
    ]
    result = paper_upsert_many(records=completed, durable=durable) if completed else UpsertResult()
    if announcement is not None:
        _mark_announced(announcement, new_papers={r.arxiv_id for r in records} - set(stored))
        _record(announcement)
    return result


def _mark_announced(announcement: FeedAnnouncement, *, new_papers: set[str]) -> None:
    """Set the announcement day on the listed versions that have none. A
    `cross` listing announces a version only if it brought the paper: else
    the version was announced in its own category before."""
    wanted = {
        (item.arxiv_id, item.version)
        for item in announcement.items
        if item.announce_type != AnnouncementItem.Type.CROSS or item.arxiv_id in new_papers
    }
    if not wanted:
        return
    ids = {arxiv_id for arxiv_id, _ in wanted}
    rows = Version.objects.filter(paper__arxiv_id__in=ids, announced__isnull=True).values_list(
        "pk", "paper__arxiv_id", "number"
    )
    pks = [pk for pk, arxiv_id, number in rows if (arxiv_id, number) in wanted]
    if pks:
        Version.objects.filter(pk__in=pks).update(announced=announcement.announced_on)


def _record(announcement: FeedAnnouncement) -> Announcement:
    """The day's announcement as last fetched: a later fetch of the same day
    replaces its items (the latest listing is arXiv's word)."""
    row, created = Announcement.objects.update_or_create(
        feed=announcement.feed,
        announced_on=announcement.announced_on,
        defaults={"fetched_at": timezone.now(), "left_for_oai": announcement.left_for_oai},
    )
    if not created:
        row.items.all().delete()
    # One row per paper: a multi-category feed may list a paper twice; the
    # highest version wins, then the listing that brought it (new over cross).
    rank = {"new": 0, "replace": 1, "replace-cross": 2, "cross": 3}
    best: dict[str, ListedItem] = {}
    for item in announcement.items:
        seen = best.get(item.arxiv_id)
        if seen is None or (item.version, -rank[item.announce_type]) > (seen.version, -rank[seen.announce_type]):
            best[item.arxiv_id] = item
    AnnouncementItem.objects.bulk_create(
        [
            AnnouncementItem(
                announcement=row, arxiv_id=item.arxiv_id, version=item.version, announce_type=item.announce_type
            )
            for item in best.values()
        ]
    )
    return row
