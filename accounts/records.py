"""Writes to research records: saving a paper with its state, tags and note."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import Record, RecordTag, Tag, User
from harvest.models import Paper

MAX_TAG_LENGTH = 100
_STATE_STAMPS = {
    Record.State.TO_READ: "to_read_at",
    Record.State.READING: "reading_at",
    Record.State.READ: "read_at",
}


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
            raise RecordError("tags", f"a tag has at most {MAX_TAG_LENGTH} characters")
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
    now = timezone.now()
    record, created = Record.objects.select_for_update().get_or_create(
        user=user, paper=paper, defaults={"saved_at": now, "to_read_at": now, "updated_at": now}
    )
    if state is not None:
        if state not in Record.State.values:
            raise RecordError("state", f"state must be one of {', '.join(Record.State.values)}")
        if state != record.state or created:
            record.state = state
            setattr(record, _STATE_STAMPS[state], now)
    if note is not None and note != record.note:
        record.note = note
        record.note_updated_at = now
    record.updated_at = now
    record.save()
    if tags is not None:
        record_set_tags(record=record, names=tags)
    return record, created


def record_set_tags(*, record: Record, names: Iterable[str]) -> list[Tag]:
    """Replace the record's tags with these names."""
    tags = tags_get_or_create(user=record.user, names=names)
    wanted = {tag.pk for tag in tags}
    RecordTag.objects.filter(record=record).exclude(tag_id__in=wanted).delete()
    have = set(RecordTag.objects.filter(record=record).values_list("tag_id", flat=True))
    RecordTag.objects.bulk_create(
        [RecordTag(record=record, tag_id=pk, user_id=record.user_id) for pk in wanted - have], ignore_conflicts=True
    )
    return tags
