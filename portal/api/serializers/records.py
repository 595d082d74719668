"""Research records: a record as the API shows it, the bodies that write one,
and a user's tags with their counts."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import serializers

from accounts.records.models import Record
from accounts.records.services import MAX_TAG_LENGTH, MAX_TAGS_PER_RECORD
from accounts.records.types import MAX_NOTE_LENGTH


def _storable(text: str) -> bool:
    """PostgreSQL text holds neither NUL nor lone surrogates (which JSON escapes can carry)."""
    return "\x00" not in text and not any("\ud800" <= char <= "\udfff" for char in text)


class StorableCharField(serializers.CharField):
    def to_internal_value(self, data):
        text = super().to_internal_value(data)
        if not _storable(text):
            raise serializers.ValidationError(_("This text holds a character that cannot be stored (NUL)."))
        return text


class RecordPaperSerializer(serializers.Serializer):
    arxiv_id = serializers.CharField(help_text="The paper's arXiv identifier, without version.")
    title = serializers.CharField(help_text="The paper's title as the library holds it (TeX as written).")
    latest_version = serializers.IntegerField(help_text="The newest version the library holds.")
    updated = serializers.DateTimeField(allow_null=True, help_text="When the latest version was submitted (UTC).")
    url = serializers.SerializerMethodField(help_text="The paper's page on this site.")

    def get_url(self, paper) -> str:
        request = self.context.get("request")
        path = f"/papers/{paper.arxiv_id}/"
        return request.build_absolute_uri(path) if request else path


class RecordSerializer(serializers.Serializer):
    paper = RecordPaperSerializer(help_text="The saved paper.")
    saved_at = serializers.DateTimeField(help_text="When you saved it (UTC).")
    state = serializers.ChoiceField(choices=Record.State.values, help_text="to_read, reading or read.")
    to_read_at = serializers.DateTimeField(allow_null=True, help_text="When the state was last set to to_read.")
    reading_at = serializers.DateTimeField(allow_null=True, help_text="When the state was last set to reading.")
    read_at = serializers.DateTimeField(allow_null=True, help_text="When the state was last set to read.")
    tags = serializers.ListField(
        child=serializers.CharField(), source="tag_names", help_text="Your tags on it, by name."
    )
    note = serializers.CharField(help_text="Your private note, Markdown as written.")
    note_updated_at = serializers.DateTimeField(allow_null=True, help_text="When the note last changed.")
    last_read_version = serializers.IntegerField(
        allow_null=True, help_text="The version you last opened (the paper page sets it); null: never opened."
    )
    revised_since_read = serializers.SerializerMethodField(
        help_text="The library holds a version newer than the one you last read."
    )
    updated_at = serializers.DateTimeField(help_text="When the record last changed (UTC).")

    def get_revised_since_read(self, record) -> bool:
        return bool(record.last_read_version and record.paper.latest_version > record.last_read_version)


class RecordWriteSerializer(serializers.Serializer):
    """A save (paper required) or a change (every field optional)."""

    paper = serializers.CharField(max_length=64, help_text="The paper's arXiv id (a version suffix is ignored).")
    state = serializers.ChoiceField(
        choices=Record.State.values, required=False, help_text="to_read (the default of a new record), reading, read."
    )
    tags = serializers.ListField(
        child=StorableCharField(max_length=MAX_TAG_LENGTH, allow_blank=False),
        max_length=MAX_TAGS_PER_RECORD,
        required=False,
        help_text="The record's tags, by name; replaces the ones it has. New names become new tags.",
    )
    note = StorableCharField(
        max_length=MAX_NOTE_LENGTH,
        allow_blank=True,
        trim_whitespace=False,
        required=False,
        help_text="Your private note in Markdown (TeX between $…$); raw HTML is shown as text.",
    )


class RecordChangeSerializer(RecordWriteSerializer):
    paper = None


class RecordPageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many records match.")
    next = serializers.URLField(allow_null=True, help_text="The next page, or null on the last.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page, or null on the first.")
    results = RecordSerializer(many=True, help_text="This page's records.")


class TagSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The tag's id.")
    name = serializers.CharField(help_text="The tag's name as first written.")
    count = serializers.IntegerField(help_text="How many of your records carry it.")


class TagListSerializer(serializers.Serializer):
    results = TagSerializer(many=True, help_text="Every tag of yours, by name.")
    by_state = serializers.DictField(child=serializers.IntegerField(), help_text="Your records per state.")
    total = serializers.IntegerField(help_text="How many records you have.")
