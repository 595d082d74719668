"""The faithfulness check of stored readings written from a full text
(`python manage.py check_readings`): for each one, every number its fields
state looked up in the version's stored text and every field checked to
be in its language (digests/field_checks.py, the checks each field passes
when written, here against the whole stored text rather than what was
sent), and every section it cites looked up among the citable units of the
version's stored document (digests/reading_text.py). Reads only the
database; no provider is called."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from digests.field_checks import field_faults
from digests.models import GuidedReading
from digests.numbers import source_values
from digests.reading_text import units_of
from harvest.fulltext.document import Document
from harvest.fulltext.selectors import full_text_document


@dataclass(frozen=True)
class ReadingCheck:
    reading_id: int
    arxiv_id: str
    version: int
    origin: str
    numbers: int  # numbers stated, over every field of both languages
    unfound_numbers: tuple[str, ...]  # "en/method: 97.3%"
    citations: int
    missing_sections: tuple[str, ...]  # "results: §9.9"
    fields: int  # non-empty fields, both languages
    wrong_language: tuple[str, ...]  # "zh/limitations"
    removed_at_writing: int = 0  # sentences the write-time checks removed (numbers, language)
    stale: bool = False  # its text was read again and differs from what it was sent

    @property
    def faithful(self) -> bool:
        return not (self.unfound_numbers or self.missing_sections or self.wrong_language)


def document_text(document: Document) -> str:
    """What a reading's numbers may come from: the text of the paper, without
    its reference list (whose years and pages would excuse invented figures)."""
    parts = [document.title, document.abstract]
    for section in document.sections:
        parts.append(section.heading)
        parts.extend(p.text for p in section.paragraphs)
    parts.extend(c.text for c in document.captions)
    return "\n".join(parts)


def check_reading(reading: GuidedReading, document: Document) -> ReadingCheck:
    version = reading.version
    header = "\n".join([version.title, version.abstract, version.comments])
    values = source_values(header + "\n" + document_text(document))
    faults = field_faults(reading.content or {}, lambda _key: values)
    units = {(u.ref, u.anchor, u.page) for u in units_of(document)}
    cited, missing = 0, []
    for key, cites in (reading.citations or {}).get("fields", {}).items():
        for cite in cites:
            cited += 1
            if (cite.get("ref"), cite.get("anchor", ""), cite.get("page")) not in units:
                missing.append(f"{key}: §{cite.get('ref')}")
    return ReadingCheck(
        reading_id=reading.pk,
        arxiv_id=version.paper.arxiv_id,
        version=version.number,
        origin=document.origin,
        numbers=faults.numbers,
        unfound_numbers=faults.unfound,
        citations=cited,
        missing_sections=tuple(missing),
        fields=faults.fields,
        wrong_language=faults.wrong_language,
        removed_at_writing=reading.numbers_removed + reading.language_removed,
        stale=reading.stale,
    )


def readings_with_full_text() -> Iterator[tuple[GuidedReading, Document]]:
    """Every done reading written from a full text whose version's text is still stored."""
    readings = (
        GuidedReading.objects.filter(status=GuidedReading.Status.DONE, source=GuidedReading.Source.FULL_TEXT)
        .select_related("version__paper")
        .order_by("version__paper__arxiv_id", "version__number", "pk")
    )
    for reading in readings.iterator():
        document = full_text_document(version_id=reading.version_id)
        if document is not None:
            yield reading, document


def check_readings() -> list[ReadingCheck]:
    return [check_reading(reading, document) for reading, document in readings_with_full_text()]


def table(checks: Iterable[ReadingCheck], *, names: dict[str, str] | None = None) -> list[str]:
    """The report as a Markdown table; `names` relabels arXiv ids (the fixtures' own names in the docs)."""
    names = names or {}
    lines = [
        "| paper | text | removed at writing | numbers found | sections found | fields in language | not faithful |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in checks:
        label = names.get(c.arxiv_id, f"{c.arxiv_id}v{c.version}")
        wrong = (f"{w} not in its language" for w in c.wrong_language)
        stale = ["stale: its text was read again and differs"] if c.stale else []
        flagged = "; ".join([*c.unfound_numbers, *c.missing_sections, *wrong, *stale])
        lines.append(
            f"| {label} | {c.origin} | {c.removed_at_writing or '—'} "
            f"| {c.numbers - len(c.unfound_numbers)}/{c.numbers} "
            f"| {c.citations - len(c.missing_sections)}/{c.citations} "
            f"| {c.fields - len(c.wrong_language)}/{c.fields} | {flagged or '—'} |"
        )
    return lines
