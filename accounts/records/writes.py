"""The record writes the others build on: tag names cleaned and found or
created, many papers saved at once (an import), the papers' copies on their
records refreshed, and the one error type of record writes."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.records.models import Record, RecordTag, Tag
from accounts.records.signals import records_changed

MAX_TAG_LENGTH = 100
MAX_TAGS_PER_RECORD = 50


def announce_records_changed(user_id: int) -> None:
    """Bulk writes send no model signals: announce the change (the recommender listens)."""
    records_changed.send(sender=Record, user_id=user_id)


class RecordError(ValueError):
    """Bad input for a record; `field` names what was wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def clean_tag_names(names: Iterable[str]) -> list[str]:
    """Stripped, non-empty names, one per spelling regardless of case, in order."""
    cleaned: dict[str, str] = {}
    for name in names:
        name = " ".join(str(name).split())
        if not name:
            continue
        if len(name) > MAX_TAG_LENGTH:
            raise RecordError("tags", _("A tag has at most %(n)d characters.") % {"n": MAX_TAG_LENGTH})
        cleaned.setdefault(name.casefold(), name)
    return list(cleaned.values())


def tags_get_or_create(*, user: User, names: Iterable[str]) -> list[Tag]:
    """The user's tags of these names, created where missing (case-insensitive)."""
    wanted = clean_tag_names(names)
    if not wanted:
        return []
    existing = {
        tag.lower_name: tag
        for tag in Tag.objects.filter(user=user)
        .annotate(lower_name=Lower("name"))
        .filter(lower_name__in=[name.lower() for name in wanted])
    }
    tags = []
    for name in wanted:
        tag = existing.get(name.lower())
        if tag is None:
            tag, _ = Tag.objects.get_or_create(user=user, name=name)
        tags.append(tag)
    return tags


ADDED, TAGS_ADDED, UNCHANGED = "added", "tags added", "unchanged"


@transaction.atomic
def records_add_many(*, user: User, tags_by_paper: dict[int, list[str]]) -> dict[int, str]:
    """Save many papers at once (an import): papers not yet saved become `to
    read` records with their tags; saved ones gain the tags they lack and keep
    everything else. Set-based, a few statements whatever the count; paper id
    -> added, tags added or unchanged (nothing written)."""
    # The user's row serialises two imports of one user, so that the records
    # created here cannot be created under them by another.
    User.objects.select_for_update().filter(pk=user.pk).first()
    wanted = {paper_id: clean_tag_names(names) for paper_id, names in tags_by_paper.items()}
    records = dict(Record.objects.filter(user=user, paper_id__in=list(wanted)).values_list("paper_id", "pk"))
    now = timezone.now()
    new_ids = [paper_id for paper_id in wanted if paper_id not in records]
    Record.objects.bulk_create(
        [Record(user=user, paper_id=paper_id, saved_at=now, to_read_at=now, updated_at=now) for paper_id in new_ids],
        batch_size=1000,
    )
    records_refresh_papers(paper_ids=new_ids, user=user)
    records.update(Record.objects.filter(user=user, paper_id__in=new_ids).values_list("paper_id", "pk"))
    tags = {tag.name.casefold(): tag.pk for tag in tags_get_or_create(user=user, names=_all_names(wanted))}
    have: dict[int, set[int]] = {}
    for record_id, tag_id in RecordTag.objects.filter(user=user, record_id__in=list(records.values())).values_list(
        "record_id", "tag_id"
    ):
        have.setdefault(record_id, set()).add(tag_id)
    links, outcome, touched = [], {}, []
    for paper_id, names in wanted.items():
        record_id = records[paper_id]
        mine = have.get(record_id, set())
        room = max(MAX_TAGS_PER_RECORD - len(mine), 0)
        missing = [tags[name.casefold()] for name in names if tags[name.casefold()] not in mine][:room]
        links += [RecordTag(record_id=record_id, tag_id=tag_id, user_id=user.pk) for tag_id in missing]
        if paper_id in new_ids:
            outcome[paper_id] = ADDED
        elif missing:
            outcome[paper_id] = TAGS_ADDED
            touched.append(record_id)
        else:
            outcome[paper_id] = UNCHANGED
    RecordTag.objects.bulk_create(links, batch_size=2000, ignore_conflicts=True)
    Record.objects.filter(pk__in=touched).update(updated_at=now)
    if new_ids or touched:
        announce_records_changed(user.pk)
    return outcome


def _all_names(wanted: dict[int, list[str]]) -> list[str]:
    return [name for names in wanted.values() for name in names]


_REFRESH_SQL = """
UPDATE accounts_record r
SET paper_categories = ' ' || array_to_string(ARRAY(SELECT jsonb_array_elements_text(p.categories)), ' ') || ' ',
    paper_title_key = left(lower(p.title), 200),
    paper_updated = p.updated,
    paper_latest_version = p.latest_version
FROM harvest_paper p
WHERE p.id = r.paper_id AND r.paper_id = ANY(%s) {user}
"""
_REFRESH_SEARCH_SQL = """
INSERT INTO accounts_recordsearch (record_id, vector)
SELECT r.id, p.search_vector FROM accounts_record r JOIN harvest_paper p ON p.id = r.paper_id
WHERE r.paper_id = ANY(%s) {user}
ON CONFLICT (record_id) DO UPDATE SET vector = EXCLUDED.vector
"""


def records_refresh_papers(*, paper_ids: Iterable[int], user: User | None = None) -> int:
    """Copy the papers' categories, title, update time, latest version and
    search vector onto the records of them (one user's, or everyone's)."""
    ids = list(paper_ids)
    if not ids:
        return 0
    if connection.vendor == "postgresql":
        mine = "AND r.user_id = %s" if user is not None else ""
        params = [ids, user.pk] if user is not None else [ids]
        with connection.cursor() as cursor:
            cursor.execute(_REFRESH_SQL.format(user=mine), params)
            count = cursor.rowcount
            cursor.execute(_REFRESH_SEARCH_SQL.format(user=mine), params)
        return count
    records = Record.objects.filter(paper_id__in=ids).select_related("paper")
    if user is not None:
        records = records.filter(user=user)
    changed = []
    for record in records:
        paper = record.paper
        record.paper_categories = f" {' '.join(paper.categories)} "
        record.paper_title_key = paper.title.lower()[:200]
        record.paper_updated = paper.updated
        record.paper_latest_version = paper.latest_version
        changed.append(record)
    fields = ["paper_categories", "paper_title_key", "paper_updated", "paper_latest_version"]
    Record.objects.bulk_update(changed, fields, batch_size=1000)
    return len(changed)
