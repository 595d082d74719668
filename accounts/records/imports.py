"""Importing a research record from a reference manager's file (BibTeX, RIS,
CSL-JSON) or a pasted list of arXiv ids, arXiv URLs and DOIs.

Each entry is matched to a library paper by arXiv id (any version, old-style
ids too), then DOI, then its normalised exact title. Entries with an arXiv id
the library lacks are looked up on the arXiv API (harvest.sources.arxiv_api:
its client, its politeness) and stored through the harvest's own
`paper_upsert_many`. Matched papers are saved together (records_add_many),
with the file's tags added to the record's own; a paper already saved with
those tags is left untouched, so importing a file twice changes nothing.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.db.models.functions import Lower
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from accounts.models import User
from accounts.records import writes as record_writes
from accounts.records.files import FileFormatError, ImportEntry, ReadResult
from accounts.records.files.detect import read_any
from accounts.records.files.identifiers import normalised_title, read_id_list
from accounts.records.writes import RecordError, records_add_many
from harvest.filters import full_text_search
from harvest.models import Paper
from harvest.services import paper_upsert_many
from harvest.sources import arxiv_api
from harvest.sources.http import SourceError

logger = logging.getLogger(__name__)

MATCHED, ADDED, UNMATCHED = "matched", "added", "unmatched"
SAVED, TAGS_ADDED, ALREADY_SAVED = "saved", "tags added", "already saved"
# Called when a reason is written, so it speaks the request's language.
_SAVE_OUTCOMES = {
    SAVED: lambda: pgettext("import outcome", "saved"),
    TAGS_ADDED: lambda: _("tags added"),
    ALREADY_SAVED: lambda: _("already saved"),
}
_OUTCOME_OF = {record_writes.ADDED: SAVED, record_writes.TAGS_ADDED: TAGS_ADDED, record_writes.UNCHANGED: ALREADY_SAVED}
TITLE_CANDIDATES = 50
_WORDS = re.compile(r"\w+")


class RecordImportError(ValueError):
    """The import as a whole cannot go ahead; `field` names the input."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass(slots=True)
class EntryResult:
    label: str
    outcome: str  # matched | added | unmatched
    reason: str
    arxiv_id: str = ""
    title: str = ""


@dataclass(slots=True)
class ImportResult:
    format: str
    entries: list[EntryResult] = field(default_factory=list)
    saved: int = 0  # records created or given new tags

    def count(self, outcome: str) -> int:
        return sum(1 for entry in self.entries if entry.outcome == outcome)

    def of(self, outcome: str) -> list[EntryResult]:
        return [entry for entry in self.entries if entry.outcome == outcome]


def records_import_file(*, user: User, data: bytes, filename: str = "") -> ImportResult:
    """Import an uploaded or pasted file; RecordImportError if it is too large,
    not text, or not in any of the formats."""
    limit = settings.RECORDS_IMPORT_MAX_BYTES
    if len(data) > limit:
        message = _("the file is %(size)s bytes; the limit is %(limit)s bytes")
        raise RecordImportError("file", message % {"size": f"{len(data):,}", "limit": f"{limit:,}"})
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RecordImportError("file", _("the file is not UTF-8 text")) from None
    if not text.strip():
        raise RecordImportError("file", _("the file is empty"))
    try:
        kind, read = read_any(text, filename)
    except FileFormatError as exc:
        raise RecordImportError("file", str(exc)) from None
    return _import(user, kind, read)


def records_import_ids(*, user: User, ids: Iterable[str]) -> ImportResult:
    """Import a list of arXiv ids, arXiv URLs or DOIs."""
    values = [str(value) for value in ids]
    if sum(len(value) for value in values) > settings.RECORDS_IMPORT_MAX_BYTES:
        raise RecordImportError("ids", _("the list is longer than the import limit"))
    read = read_id_list("\n".join(value.replace("\n", " ") for value in values))
    if not read.entries and not read.malformed:
        raise RecordImportError("ids", _("give at least one arXiv id, arXiv URL or DOI"))
    return _import(user, "ids", read)


def _import(user: User, kind: str, read: ReadResult) -> ImportResult:
    result = ImportResult(format=kind)
    found, ambiguous = _match(read.entries)
    added = _look_up(read.entries, found)
    to_save: dict[int, tuple[Paper, list[str]]] = {}
    for entry in read.entries:
        if id(entry) in found:
            paper = found[id(entry)][0]
            to_save.setdefault(paper.pk, (paper, []))[1].extend(entry.tags)
    try:
        saved = _save(user, to_save)
    except RecordError as exc:
        raise RecordImportError("file", str(exc)) from None
    result.saved = sum(1 for what in saved.values() if what != ALREADY_SAVED)
    for entry in read.entries:
        match = found.get(id(entry))
        if match is None:
            reason = _unmatched_reason(entry, added, ambiguous)
            result.entries.append(EntryResult(entry.label, UNMATCHED, reason, entry.arxiv_id, entry.title))
            continue
        paper, how = match
        outcome = ADDED if paper.arxiv_id in added["papers"] else MATCHED
        reason = _("%(how)s; %(what)s") % {"how": how, "what": _SAVE_OUTCOMES[saved[paper.pk]]()}
        result.entries.append(EntryResult(entry.label, outcome, reason, paper.arxiv_id, paper.title))
    for bad in read.malformed:
        reason = _("malformed entry: %(reason)s") % {"reason": bad.reason}
        result.entries.append(EntryResult(bad.label, UNMATCHED, reason))
    return result


def _match(entries: list[ImportEntry]) -> tuple[dict[int, tuple[Paper, str]], dict[int, int]]:
    """Each matched entry (by identity) -> (paper, how it was matched), and
    the entries whose title names more than one paper -> how many."""
    found: dict[int, tuple[Paper, str]] = {}
    ambiguous: dict[int, int] = {}
    only = ("pk", "arxiv_id", "title")
    by_id = Paper.objects.only(*only).in_bulk({e.arxiv_id for e in entries if e.arxiv_id}, field_name="arxiv_id")
    for entry in entries:
        if entry.arxiv_id in by_id:
            found[id(entry)] = (by_id[entry.arxiv_id], _("arXiv id %(id)s") % {"id": entry.arxiv_id})
    dois = {e.doi for e in entries if e.doi and id(e) not in found}
    if dois:
        # Stored DOIs are as the source wrote them; compared without case.
        rows = Paper.objects.only(*only).annotate(lower_doi=Lower("doi")).filter(lower_doi__in=dois)
        by_doi = {paper.lower_doi: paper for paper in rows}
        for entry in entries:
            if id(entry) not in found and entry.doi in by_doi:
                found[id(entry)] = (by_doi[entry.doi], _("DOI %(doi)s") % {"doi": entry.doi})
    for entry in entries:
        if id(entry) in found or not entry.title:
            continue
        wanted = normalised_title(entry.title)
        words = " ".join(_WORDS.findall(entry.title))
        if not wanted or not words:
            continue
        # The full-text index narrows the library to a few candidates (the
        # words as written: the index keeps accents), compared exactly here.
        candidates = full_text_search(Paper.objects.only(*only), words).order_by("pk")[:TITLE_CANDIDATES]
        same = [paper for paper in candidates if normalised_title(paper.title) == wanted]
        if len(same) == 1:
            found[id(entry)] = (same[0], _("title"))
        elif same:
            ambiguous[id(entry)] = len(same)
    return found, ambiguous


def _look_up(entries: list[ImportEntry], found: dict[int, tuple[Paper, str]]) -> dict:
    """Look up on arXiv the entries whose arXiv id the library lacks, store
    what arXiv returns, and match those entries to the stored papers."""
    missing = list(dict.fromkeys(e.arxiv_id for e in entries if e.arxiv_id and id(e) not in found))
    cap = settings.RECORDS_IMPORT_MAX_LOOKUPS
    asked, skipped = missing[:cap], set(missing[cap:])
    outcome: dict = {"asked": set(asked), "over_cap": skipped, "papers": set(), "error": ""}
    if not asked:
        return outcome
    try:
        records = arxiv_api.lookup_ids(asked, client=arxiv_api.make_client())
    except SourceError as exc:
        logger.warning("arXiv lookup for an import failed: %s", exc)
        outcome["error"] = str(exc)
        return outcome
    if records:
        paper_upsert_many(records=records)
    stored = Paper.objects.only("pk", "arxiv_id", "title").in_bulk([r.arxiv_id for r in records], field_name="arxiv_id")
    outcome["papers"] = set(stored)
    for entry in entries:
        if id(entry) not in found and entry.arxiv_id in stored:
            how = _("arXiv id %(id)s, looked up on arXiv and added") % {"id": entry.arxiv_id}
            found[id(entry)] = (stored[entry.arxiv_id], how)
    return outcome


def _unmatched_reason(entry: ImportEntry, looked_up: dict, ambiguous: dict[int, int]) -> str:
    values = {"id": entry.arxiv_id, "doi": entry.doi, "error": looked_up["error"], "count": ambiguous.get(id(entry))}
    if entry.arxiv_id:
        if entry.arxiv_id in looked_up["over_cap"]:
            return _("arXiv id %(id)s is not in the library and over this import's limit of arXiv lookups") % values
        if looked_up["error"]:
            # The exception is in the log; the reader gets what it means for them.
            return (
                _(
                    "arXiv id %(id)s is not in the library, and arXiv could not be reached just now; "
                    "import it again later."
                )
                % values
            )
        return _("arXiv id %(id)s: arXiv does not know this paper") % values
    if id(entry) in ambiguous:
        return _("no arXiv id or known DOI, and the title names %(count)d library papers") % values
    if entry.doi:
        return _("no arXiv id; DOI %(doi)s and the title are not in the library") % values
    return _("no arXiv id or DOI, and no library paper has this title")


def _save(user: User, to_save: dict[int, tuple[Paper, list[str]]]) -> dict[int, str]:
    """Save each matched paper with the file's tags added; paper id -> what
    happened to its record."""
    outcomes = records_add_many(user=user, tags_by_paper={paper_id: names for paper_id, (_p, names) in to_save.items()})
    return {paper_id: _OUTCOME_OF[outcome] for paper_id, outcome in outcomes.items()}
