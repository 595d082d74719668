"""Writes to research records: saving a paper with its state, tags and note."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.records.models import Record, RecordTag, Tag
from accounts.records.notes import MAX_NOTE_LENGTH
from accounts.records.signals import records_changed
from accounts.trail.services import trail_mark_read_papers
from harvest.models import Paper

MAX_TAG_LENGTH = 100
MAX_TAGS_PER_RECORD = 50
_STATE_STAMPS = {
    Record.State.TO_READ: "to_read_at",
    Record.State.READING: "reading_at",
    Record.State.READ: "read_at",
}


def _records_changed(user_id: int) -> None:
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


@transaction.atomic
def record_save(
    *,
    user: User,
    paper: Paper,
    state: str | None = None,
    tags: Iterable[str] | None = None,
    note: str | None = None,
) -> tuple[Record, bool]:
    """Save a paper to the user's record, or update the record already there.
    `tags` replaces the record's tags when given; None leaves each part as it is."""
    if note is not None and len(note) > MAX_NOTE_LENGTH:
        raise RecordError("note", _("A note has at most %(n)d characters.") % {"n": MAX_NOTE_LENGTH})
    now = timezone.now()
    record, created = Record.objects.select_for_update().get_or_create(
        user=user, paper=paper, defaults={"saved_at": now, "to_read_at": now, "updated_at": now}
    )
    if state is not None:
        if state not in Record.State.values:
            raise RecordError("state", _("Use to_read, reading or read."))
        if state != record.state or created:
            record.state = state
            setattr(record, _STATE_STAMPS[state], now)
    if note is not None and note != record.note:
        record.note = note
        record.note_updated_at = now
    record.updated_at = now
    record.save()
    if created:
        records_refresh_papers(paper_ids=[paper.pk], user=user)
    if tags is not None:
        record_set_tags(record=record, names=tags)
    return record, created


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
        _records_changed(user.pk)
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


def record_set_tags(*, record: Record, names: Iterable[str]) -> list[Tag]:
    """Replace the record's tags with these names."""
    names = clean_tag_names(names)
    if len(names) > MAX_TAGS_PER_RECORD:
        raise RecordError("tags", _("A record has at most %(n)d tags.") % {"n": MAX_TAGS_PER_RECORD})
    tags = tags_get_or_create(user=record.user, names=names)
    wanted = {tag.pk for tag in tags}
    RecordTag.objects.filter(record=record).exclude(tag_id__in=wanted).delete()
    have = set(RecordTag.objects.filter(record=record).values_list("tag_id", flat=True))
    RecordTag.objects.bulk_create(
        [RecordTag(record=record, tag_id=pk, user_id=record.user_id) for pk in wanted - have], ignore_conflicts=True
    )
    return tags


@transaction.atomic
def record_remove(*, user: User, paper: Paper) -> bool:
    """Unsave a paper: its record, note and tag links go; the tags stay."""
    deleted, _ = Record.objects.filter(user=user, paper=paper).delete()
    return bool(deleted)


def _own_records(user: User, record_ids: Iterable[int]):
    return Record.objects.filter(user=user, pk__in=[int(pk) for pk in record_ids])


@transaction.atomic
def records_set_state(*, user: User, record_ids: Iterable[int], state: str) -> int:
    """Set the state of these of the user's records (others' ids change nothing)."""
    if state not in Record.State.values:
        raise RecordError("state", _("Use to_read, reading or read."))
    now = timezone.now()
    return (
        _own_records(user, record_ids)
        .exclude(state=state)
        .update(state=state, updated_at=now, **{_STATE_STAMPS[state]: now})
    )


@transaction.atomic
def records_add_tag(*, user: User, record_ids: Iterable[int], name: str) -> int:
    """Put one tag (created if missing) on these of the user's records."""
    tags = tags_get_or_create(user=user, names=[name])
    if not tags:
        raise RecordError("tag", _("Give a tag name."))
    ids = list(_own_records(user, record_ids).values_list("pk", flat=True))
    created = RecordTag.objects.bulk_create(
        [RecordTag(record_id=pk, tag=tags[0], user=user) for pk in ids], ignore_conflicts=True
    )
    Record.objects.filter(pk__in=ids).update(updated_at=timezone.now())
    if ids:
        _records_changed(user.pk)
    return len(created)


@transaction.atomic
def records_remove(*, user: User, record_ids: Iterable[int]) -> int:
    _deleted, by_model = _own_records(user, record_ids).delete()
    return by_model.get(Record._meta.label, 0)


def _own_tag(user: User, tag_id: int, field: str = "tag") -> Tag:
    tag = Tag.objects.filter(user=user, pk=tag_id).first()
    if tag is None:
        raise RecordError(field, _("You have no such tag."))
    return tag


@transaction.atomic
def tag_rename(*, user: User, tag_id: int, name: str) -> Tag:
    """Rename a tag; a name another of the user's tags holds is an error (merge instead)."""
    tag = _own_tag(user, tag_id)
    names = clean_tag_names([name])
    if not names:
        raise RecordError("name", _("Give a tag name."))
    clash = (
        Tag.objects.filter(user=user).annotate(lower_name=Lower("name")).filter(lower_name=names[0].lower())
    ).exclude(pk=tag.pk)
    if clash.exists():
        raise RecordError("name", _("You already have a tag of this name: merge the two instead."))
    tag.name = names[0]
    tag.save(update_fields=["name"])
    return tag


@transaction.atomic
def tag_merge(*, user: User, tag_id: int, into_id: int) -> Tag:
    """Move every record of one tag onto another and delete the first."""
    source, target = _own_tag(user, tag_id), _own_tag(user, into_id, "into")
    if source.pk == target.pk:
        raise RecordError("into", _("A tag cannot be merged into itself."))
    record_ids = RecordTag.objects.filter(tag=source).values_list("record_id", flat=True)
    RecordTag.objects.bulk_create(
        [RecordTag(record_id=pk, tag=target, user=user) for pk in record_ids], ignore_conflicts=True
    )
    source.delete()
    _records_changed(user.pk)
    return target


@transaction.atomic
def tag_delete(*, user: User, tag_id: int) -> None:
    _own_tag(user, tag_id).delete()


def record_opened(*, user: User, paper: Paper) -> Record | None:
    """The owner opened the paper's page: the latest version is now the one
    they read, and the trail card of a revision of it is read."""
    record = Record.objects.filter(user=user, paper=paper).first()
    if record is None:
        return None
    if record.last_read_version != paper.latest_version:
        Record.objects.filter(pk=record.pk).update(last_read_version=paper.latest_version)
        record.last_read_version = paper.latest_version
        trail_mark_read_papers(user=user, paper_ids=[paper.pk])
    return record


@transaction.atomic
def record_note_append(*, user: User, paper: Paper, text: str) -> Record:
    """Save the paper (if not saved yet) and add `text` at the end of its
    note, after a rule; an answer saved from "ask the library" lands here."""
    existing = Record.objects.filter(user=user, paper=paper).values_list("note", flat=True).first() or ""
    note = f"{existing.rstrip()}\n\n---\n\n{text.strip()}" if existing.strip() else text.strip()
    record, _created = record_save(user=user, paper=paper, note=note)
    return record
