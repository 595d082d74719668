"""Writes to research records: saving a paper with its state, tags and note."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.records.imports import records_import_file, records_import_ids
from accounts.records.models import Record, RecordTag, Tag
from accounts.records.notes import MAX_NOTE_LENGTH
from accounts.records.writes import (
    MAX_TAG_LENGTH,
    MAX_TAGS_PER_RECORD,
    RecordError,
    announce_records_changed,
    clean_tag_names,
    records_add_many,
    records_refresh_papers,
    tags_get_or_create,
)
from accounts.trail.services import trail_mark_read_papers
from harvest.models import Paper

__all__ = [
    "MAX_TAGS_PER_RECORD",
    "MAX_TAG_LENGTH",
    "RecordError",
    "clean_tag_names",
    "record_note_append",
    "record_opened",
    "record_remove",
    "record_save",
    "record_set_tags",
    "records_add_many",
    "records_add_tag",
    "records_import_file",
    "records_import_ids",
    "records_refresh_papers",
    "records_remove",
    "records_set_state",
    "tag_delete",
    "tag_merge",
    "tag_rename",
    "tags_get_or_create",
]

_STATE_STAMPS = {
    Record.State.TO_READ: "to_read_at",
    Record.State.READING: "reading_at",
    Record.State.READ: "read_at",
}


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
        announce_records_changed(user.pk)
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
    announce_records_changed(user.pk)
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
