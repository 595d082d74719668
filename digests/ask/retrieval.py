"""The context of a question: the papers the library's hybrid search ranks
first for it (as /api/v1/papers/?q=…&sort=relevance ranks them, under the same
filters), with the guided reading of each one's latest version; or, to ask
about one paper, that paper's versions with their stored changes and readings.
Where a version's full text is read, its passages nearest the question go
with it: the best PASSAGES_PER_PAPER of each of the first PASSAGE_PAPERS
papers, or PAPER_PASSAGES of each version of the one paper asked about."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.db.models import F, QuerySet

from digests.ask.citations import GivenSection
from digests.ask.prompt import ContextPaper, ContextPassage
from digests.models import GuidedReading
from digests.selectors import readings_for_versions
from harvest.filters import MAX_QUERY_LENGTH, SORT_RELEVANCE, PaperFilterSet
from harvest.fulltext.chunks import normal_label
from harvest.fulltext.selectors import nearest_passages, versions_awaiting_passages
from harvest.models import Paper, Version
from harvest.selectors import VersionChange, paper_history

FILTER_NAMES = ("category", "since", "until", "ai")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_HISTORY_LIMIT = 3000  # characters of one version's changes in the context
# About 2,400 words of passages in a library answer's context (a passage is at
# most 160 words), and as many from the one paper of "ask about this paper".
PASSAGE_PAPERS = 5
PASSAGES_PER_PAPER = 3
PAPER_PASSAGES = 15


class FilterError(ValueError):
    """Filters that the library's FilterSet refuses; `errors` names each parameter."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__("; ".join(f"{name}: {' '.join(messages)}" for name, messages in errors.items()))
        self.errors = errors


def language_of(question: str) -> str:
    """zh for a question with Chinese characters, else en."""
    return "zh" if _CJK.search(question) else "en"


def search_text(question: str, earlier_questions: Iterable[str] = ()) -> str:
    """What the search is given: the question (a follow-up with the thread's
    first question before it, so that "and how do they differ?" still finds
    the papers), within the library's query length."""
    text = " ".join([*earlier_questions, question][-2:])
    return " ".join(text.split())[-MAX_QUERY_LENGTH:].strip()


def filter_data(filters: dict[str, Any]) -> dict[str, Any]:
    """The filters in the FilterSet's own parameter form."""
    data: dict[str, Any] = {}
    for name in FILTER_NAMES:
        value = filters.get(name)
        if value in (None, "", []):
            continue
        if name == "ai" and isinstance(value, bool):
            value = "1" if value else "0"
        data[name] = value if name == "category" and isinstance(value, list) else str(value)
    return data


class _ScopedFilterSet(PaperFilterSet):
    """The library's FilterSet over a scope's papers: a scope narrows the
    library like a filter does, so the semantic side ranks the scope's own
    papers instead of keeping those of the whole library's nearest that fall
    in it (a research record of 40 papers would rarely meet the top 100)."""

    scoped = False

    @property
    def narrows_besides_query(self) -> bool:
        return self.scoped or super().narrows_besides_query


def retrieve(
    *, question: str, filters: dict[str, Any], within: QuerySet[Paper] | None = None, k: int | None = None
) -> list[Paper]:
    """The top k papers for the question under the filters (and within a
    scope's papers), best first. Raises FilterError for a refused filter."""
    data = filter_data(filters)
    filterset = _ScopedFilterSet({**data, "q": question, "sort": SORT_RELEVANCE}, queryset=within)
    filterset.scoped = within is not None
    if not filterset.is_valid():
        raise FilterError({name: [str(m) for m in messages] for name, messages in filterset.form.errors.items()})
    return list(filterset.qs[: k or settings.PAPERTRAIL_ASK_TOP_K])


def _reading_text(reading: GuidedReading | None, language: str) -> str:
    if reading is None or not isinstance(reading.content, dict):
        return ""
    sections = reading.content.get(language) or {}
    if not isinstance(sections, dict):
        return ""
    keys = ("takeaway", "problem", "method", "results", "limitations", "changes")
    return " ".join(f"{key}: {sections[key]}" for key in keys if sections.get(key))


def context_papers(papers: list[Paper], *, language: str) -> list[ContextPaper]:
    """Each paper at its latest version, with that version's guided reading (two queries)."""
    rows = Version.objects.filter(paper_id__in=[p.pk for p in papers], number=F("paper__latest_version"))
    version_ids = dict(rows.values_list("paper_id", "id"))
    readings = readings_for_versions(version_ids=[vid for vid in version_ids.values() if vid])
    return [
        ContextPaper(
            arxiv_id=paper.arxiv_id,
            version=paper.latest_version,
            title=paper.title,
            abstract=paper.abstract,
            reading=_reading_text(readings.get(version_ids.get(paper.pk, -1)), language),
            version_id=version_ids.get(paper.pk),
        )
        for paper in papers
    ]


def _change_text(change: VersionChange | None) -> str:
    """A version's stored changes as text: [-removed-] and {+added+} words."""
    if change is None or not change.recorded:
        return ""
    parts = []
    for field in change.fields:
        if field.name == "authors":
            parts.append(f"authors: removed {', '.join(field.removed) or '-'}; added {', '.join(field.added) or '-'}")
            continue
        marked = "".join(
            text if operation == "equal" else (f"[-{text}-]" if operation == "delete" else f"{{+{text}+}}")
            for operation, text in field.segments
        )
        parts.append(f"{field.name}, v{change.older.number} to v{change.newer.number}: {marked}")
    text = "\n".join(parts) or f"v{change.newer.number} changed no title, abstract, comments or authors"
    return text[:_HISTORY_LIMIT]


def paper_context(paper: Paper, *, language: str) -> list[ContextPaper]:
    """Every version of one paper, each with its text, its changes from the
    version before (the stored word diff) and its guided reading."""
    history = paper_history(arxiv_id=paper.arxiv_id)
    if history is None:
        return []
    changes = {change.newer.number: change for change in history.changes}
    readings = readings_for_versions(version_ids=[v.pk for v in history.versions])
    context = []
    for version in history.versions:
        latest = version.number == paper.latest_version
        context.append(
            ContextPaper(
                arxiv_id=paper.arxiv_id,
                version=version.number,
                title=version.title or (paper.title if latest else ""),
                abstract=version.abstract or (paper.abstract if latest else ""),
                reading=_reading_text(readings.get(version.pk), language),
                history=_change_text(changes.get(version.number)),
                version_id=version.pk,
            )
        )
    return context


def with_passages(papers: list[ContextPaper], *, question: str, about_paper: bool) -> list[ContextPaper]:
    """The context with the passages nearest the question of each version
    whose full text is cut into passages (in document order within a paper,
    so a section reads in sequence)."""
    chosen = papers if about_paper else papers[:PASSAGE_PAPERS]
    per_version = PAPER_PASSAGES if about_paper else PASSAGES_PER_PAPER
    found = nearest_passages(
        version_ids=[p.version_id for p in chosen if p.version_id], question=question, per_version=per_version
    )
    out = []
    for paper in papers:
        best = sorted(found.get(paper.version_id or -1, []), key=lambda passage: passage.position)
        passages = tuple(
            ContextPassage(p.section, p.heading, p.text, anchor=p.anchor, page=p.page, position=p.position)
            for p in best
        )
        out.append(replace(paper, passages=passages) if passages else paper)
    return out


def awaiting_passages(papers: list[ContextPaper]) -> list[int]:
    """The context's versions whose full text is read but not yet in passages."""
    return versions_awaiting_passages(version_ids=[p.version_id for p in papers if p.version_id and not p.passages])


def given_sections(papers: list[ContextPaper]) -> dict[tuple[str, int], dict[str, GivenSection]]:
    """The sections of the passages given, by paper and version, then by the
    label as citations are compared."""
    given: dict[tuple[str, int], dict[str, GivenSection]] = {}
    for paper in papers:
        sections = given.setdefault((paper.arxiv_id, paper.version), {})
        for passage in paper.passages:
            key = normal_label(passage.section)
            known = sections.get(key)
            positions = (*known.positions, passage.position) if known else (passage.position,)
            sections[key] = GivenSection(passage.section, passage.anchor, passage.page, positions)
    return {key: sections for key, sections in given.items() if sections}
