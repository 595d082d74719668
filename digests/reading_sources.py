"""What a guided reading is written from, and the checks of what came back
that depend on it: the full text when the version's has been read (the
sections the token budget holds, digests/reading_text.py; for a revision
the section diff of the two versions, digests/revision_diff.py), its title,
abstract and comments otherwise; and each field of what came back checked
against the text that was sent (digests/field_checks.py: its numbers occur
in it, it is in its language)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from digests import fulltext_prompt, llm
from digests.field_checks import FieldFaults, Sources, field_faults, without_faults
from digests.models import GuidedReading
from digests.numbers import source_values
from digests.providers import registry
from digests.providers.base import StructuredRequest
from digests.reading_text import Chosen, select_units, units_of
from digests.revision_diff import diff_text, section_diff
from harvest.fulltext.document import Document
from harvest.fulltext.selectors import full_text_document, section_url
from harvest.models import Version

Source = GuidedReading.Source


@dataclass(frozen=True)
class ReadingInput:
    request: StructuredRequest
    abstracts: list[str]
    is_revision_with_previous: bool
    source: str = Source.ABSTRACT
    # What a field's numbers must occur in: everything the model was sent of this version.
    source_text: str = ""
    # What "changes" may also state: the previous version's text or the section diff that was sent.
    previous_text: str = ""
    given: dict[str, Chosen] = field(default_factory=dict)
    origin: str = ""  # of the full text: "html" or "pdf"
    arxiv_id: str = ""
    number: int = 0

    @property
    def text_hash(self) -> str:
        """What a reading records of the text it was sent, to tell when a re-read text differs."""
        return hashlib.sha256(self.request.user.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Checked:
    content: dict[str, dict[str, str]]
    citations: dict[str, Any]
    faults: FieldFaults  # numbers the text sent does not state, fields not in their language
    removed_links: list[str]
    source: str = Source.ABSTRACT
    dropped_citations: int = 0


def _text_of(version: Version) -> tuple[llm.PaperText, llm.PaperText | None, Version | None]:
    paper = version.paper
    latest = version.number == paper.latest_version

    def own(name: str) -> str:
        return getattr(version, name) or (getattr(paper, name) if latest else "")

    current = llm.PaperText(title=own("title"), abstract=own("abstract"), comments=own("comments"))
    before = None
    if version.number > 1:
        before = Version.objects.filter(paper_id=paper.pk, number=version.number - 1).first()
    previous = None
    if before is not None and before.abstract.strip():
        previous = llm.PaperText(title=before.title, abstract=before.abstract, comments=before.comments)
    return current, previous, before


def _header(arxiv_id: str, number: int, text: llm.PaperText) -> str:
    return f"arXiv {arxiv_id} v{number}\n{text.title}\n{text.abstract}\n{text.comments}"


def reading_input(version: Version) -> ReadingInput | None:
    """The request for a version, or None when there is no text to summarise.
    A version stored without its own text (sources that give dates only) uses
    the paper's text when it is the latest version, or its full text's."""
    current, previous, before = _text_of(version)
    document = full_text_document(version_id=version.pk)
    if document is not None and not current.abstract.strip() and document.abstract:
        current = llm.PaperText(title=current.title or document.title, abstract=document.abstract, comments="")
    if not current.abstract.strip():
        return None
    arxiv_id, model = version.paper.arxiv_id, registry.task_choice("readings")[1]
    abstracts = [current.abstract] + ([previous.abstract] if previous else [])
    chosen = select_units(units_of(document), budget=settings.PAPERTRAIL_SUMMARY_FULLTEXT_TOKENS) if document else []
    if not chosen:
        request = llm.reading_request(
            model=model, arxiv_id=arxiv_id, number=version.number, current=current, previous=previous
        )
        header = _header(arxiv_id, version.number, current)
        earlier = _header(arxiv_id, version.number - 1, previous) if previous else ""
        return ReadingInput(request, abstracts, previous is not None, source_text=header, previous_text=earlier)
    diff = _revision_diff(before, document, version.number)
    user = fulltext_prompt.user_message(
        arxiv_id=arxiv_id, number=version.number, current=current, chosen=chosen, previous=previous, diff=diff
    )
    return ReadingInput(
        request=fulltext_prompt.reading_request(model=model, user=user),
        abstracts=abstracts,
        is_revision_with_previous=bool(diff) or previous is not None,
        source=Source.FULL_TEXT,
        source_text="\n".join([_header(arxiv_id, version.number, current), *(c.text for c in chosen)]),
        previous_text=diff or (_header(arxiv_id, version.number - 1, previous) if previous else ""),
        given={c.unit.ref: c for c in chosen},
        origin=document.origin,
        arxiv_id=arxiv_id,
        number=version.number,
    )


def _revision_diff(before: Version | None, document: Document, number: int) -> str:
    """The section diff with the previous version, when its full text has been read too."""
    old = full_text_document(version_id=before.pk) if before is not None else None
    if old is None:
        return ""
    return diff_text(section_diff(old, document), previous=number - 1, current=number)


def _citation(prepared: ReadingInput, ref: str) -> dict[str, Any]:
    unit = prepared.given[ref].unit
    # The answers' address of a section too (PAPERTRAIL_ARXIV_HTML_URL or _PDF_URL), so both link alike.
    html = prepared.origin == "html"
    url = section_url(
        arxiv_id=prepared.arxiv_id,
        version=prepared.number,
        anchor=unit.anchor if html else "",
        page=None if html else unit.page,
    )
    return {"ref": ref, "heading": unit.heading, "anchor": unit.anchor, "page": unit.page, "url": url}


def checked_reading(data: Any, prepared: ReadingInput) -> Checked:
    """The reply validated (llm.validated_reading), its citations kept among
    the sections sent, and the numbers of results the source does not state.
    Raises InvalidReply."""
    content, removed = llm.validated_reading(fulltext_prompt.reading_part(data), abstracts=prepared.abstracts)
    if not prepared.is_revision_with_previous:
        for lang in llm.LANGUAGES:
            content[lang]["changes"] = ""
    citations: dict[str, Any] = {}
    dropped = 0
    # A batch reply asked for before the full text arrived has no sources: it was written from the abstract.
    from_full_text = bool(prepared.given) and isinstance(data, dict) and "sources" in data
    if from_full_text:
        fields, dropped = fulltext_prompt.cited_sections(data, given=prepared.given)
        citations = {
            "origin": prepared.origin,
            "fields": {
                key: [_citation(prepared, ref) for ref in refs]
                for key, refs in fields.items()
                if refs and (key != "changes" or content["en"]["changes"])
            },
        }
    faults = field_faults(content, field_sources(prepared))
    source = Source.FULL_TEXT if from_full_text else Source.ABSTRACT
    return Checked(content, citations, faults, removed, source, dropped)


def field_sources(prepared: ReadingInput) -> Sources:
    """Each field's source values: the text sent of this version, and for
    "changes" the previous version's text or diff as well."""
    own = source_values(prepared.source_text)
    both = own | source_values(prepared.previous_text)
    return lambda key: both if key == "changes" else own


def without_faulty(checked: Checked, prepared: ReadingInput) -> tuple[dict[str, dict[str, str]], int, int]:
    """The content without the sentences that failed a field's check; with
    how many went for a number and how many for their language."""
    return without_faults(checked.content, field_sources(prepared))
