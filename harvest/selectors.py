"""Reads of the library for the portal pages and the API: paper lists with what
a card shows, a paper with its version history and what changed, the papers
behind a briefing, and the progress of each source.

Every function runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.utils import timezone

from digests.models import GuidedReading
from digests.selectors import readings_for_versions
from harvest.filters import SORT_INCLUDED, SORT_UPDATED
from harvest.models import CommunityPick, HarvestRun, Paper, Source, Version
from harvest.stats.overview import done_readings, revision_versions
from harvest.stats.windows import Window
from papertrail.schedules import next_runs

# --- cards --------------------------------------------------------------------


@dataclass(slots=True)
class PaperCard:
    """A paper as a list shows it: the paper, its HF picks, the reading of its
    latest version, and (in briefings) the versions and readings of the window."""

    paper: Paper
    picks: list[CommunityPick] = field(default_factory=list)
    reading: GuidedReading | None = None
    window_versions: list[int] = field(default_factory=list)
    window_readings: list[GuidedReading] = field(default_factory=list)

    @property
    def is_revision(self) -> bool:
        return self.paper.version_count > 1

    @property
    def top_upvotes(self) -> int:
        return max((pick.upvotes for pick in self.picks), default=0)


def paper_cards(papers: Sequence[Paper]) -> list[PaperCard]:
    """Cards for a page of papers (three queries: picks, latest versions, readings)."""
    if not papers:
        return []
    ids = [paper.pk for paper in papers]
    picks: dict[int, list[CommunityPick]] = defaultdict(list)
    for pick in CommunityPick.objects.filter(paper_id__in=ids).select_related("source").order_by("-upvotes"):
        picks[pick.paper_id].append(pick)
    latest = dict(
        Version.objects.filter(paper_id__in=ids, number=F("paper__latest_version")).values_list("paper_id", "id")
    )
    readings = readings_for_versions(version_ids=latest.values())
    return [
        PaperCard(paper=paper, picks=picks.get(paper.pk, []), reading=readings.get(latest.get(paper.pk, -1)))
        for paper in papers
    ]


# --- briefings ---------------------------------------------------------------

BRIEFING_NEW = "new"
BRIEFING_AI = "ai"
BRIEFING_REVISIONS = "revisions"
BRIEFING_READINGS = "readings"
BRIEFING_KINDS = (BRIEFING_NEW, BRIEFING_AI, BRIEFING_REVISIONS, BRIEFING_READINGS)
BRIEFING_SORT = {
    BRIEFING_NEW: SORT_INCLUDED,
    BRIEFING_AI: SORT_INCLUDED,
    BRIEFING_REVISIONS: SORT_UPDATED,
    BRIEFING_READINGS: SORT_UPDATED,
}


def briefing_papers(*, kind: str, window: Window) -> QuerySet[Paper]:
    """Exactly the papers behind one overview number of a window (unordered)."""
    if kind == BRIEFING_NEW:
        return Paper.objects.filter(included_at__gte=window.start, included_at__lte=window.end)
    if kind == BRIEFING_AI:
        return Paper.objects.filter(included_at__gte=window.start, included_at__lte=window.end, ai_related=True)
    if kind == BRIEFING_REVISIONS:
        return Paper.objects.filter(id__in=revision_versions(window).values("paper_id"))
    if kind == BRIEFING_READINGS:
        return Paper.objects.filter(id__in=done_readings(window).values("version__paper_id"))
    raise ValueError(f"unknown briefing kind {kind!r}")


def briefing_cards(*, kind: str, window: Window, papers: Sequence[Paper]) -> list[PaperCard]:
    """Cards plus what the window brought to each paper (one more query)."""
    cards = paper_cards(papers)
    ids = [card.paper.pk for card in cards]
    by_paper = {card.paper.pk: card for card in cards}
    if kind == BRIEFING_REVISIONS:
        for paper_id, number in (
            revision_versions(window).filter(paper_id__in=ids).order_by("number").values_list("paper_id", "number")
        ):
            by_paper[paper_id].window_versions.append(number)
    elif kind == BRIEFING_READINGS:
        for reading in done_readings(window).filter(version__paper_id__in=ids).select_related("version"):
            by_paper[reading.version.paper_id].window_readings.append(reading)
    return cards


# --- one paper -------------------------------------------------------------------

_TOKENS = re.compile(r"\s+|[^\s]+")


@dataclass(slots=True)
class FieldChange:
    """What changed in one field between two versions: a word diff as
    (operation, text) segments with operation equal/delete/insert, or for
    authors the names removed and added."""

    name: str
    segments: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    reordered: bool = False


@dataclass(slots=True)
class VersionChange:
    older: Version
    newer: Version
    recorded: bool  # both versions' texts were stored, so they can be compared
    fields: list[FieldChange] = field(default_factory=list)


@dataclass(slots=True)
class PaperDetail:
    paper: Paper
    versions: list[Version]
    changes: list[VersionChange]
    readings: dict[int, GuidedReading]
    picks: list[CommunityPick]


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """Segments of a word diff over word and whitespace tokens.

    Words are aligned first, without the whitespace tokens (as tokens, the
    spaces made the matcher quadratic: tens of milliseconds per abstract
    pair); the tokens between and inside aligned runs are then diffed token by
    token, so whitespace still shows as it changed."""
    old_tokens, new_tokens = _TOKENS.findall(old), _TOKENS.findall(new)
    old_words = [i for i, token in enumerate(old_tokens) if not token.isspace()]
    new_words = [i for i, token in enumerate(new_tokens) if not token.isspace()]
    matcher = difflib.SequenceMatcher(
        a=[old_tokens[i] for i in old_words], b=[new_tokens[i] for i in new_words], autojunk=False
    )
    segments: list[tuple[str, str]] = []
    a_done = b_done = 0
    for a1, b1, size in matcher.get_matching_blocks():
        if size == 0:  # the closing block: what is left after the last aligned word
            _token_diff(old_tokens[a_done:], new_tokens[b_done:], segments)
            break
        a_start, b_start = old_words[a1], new_words[b1]
        _token_diff(old_tokens[a_done:a_start], new_tokens[b_done:b_start], segments)
        a_done, b_done = old_words[a1 + size - 1] + 1, new_words[b1 + size - 1] + 1
        _token_diff(old_tokens[a_start:a_done], new_tokens[b_start:b_done], segments)
    return segments


def _token_diff(old: list[str], new: list[str], segments: list[tuple[str, str]]) -> None:
    """Append the diff of two short token runs, merging with the previous segment."""

    def add(operation: str, tokens: list[str]) -> None:
        if not tokens:
            return
        if segments and segments[-1][0] == operation:
            segments[-1] = (operation, segments[-1][1] + "".join(tokens))
        else:
            segments.append((operation, "".join(tokens)))

    if old == new:
        add("equal", old)
        return
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for operation, a1, a2, b1, b2 in matcher.get_opcodes():
        if operation == "equal":
            add("equal", old[a1:a2])
            continue
        if operation in ("delete", "replace"):
            add("delete", old[a1:a2])
        if operation in ("insert", "replace"):
            add("insert", new[b1:b2])


def _author_names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def version_change(older: Version, newer: Version) -> VersionChange:
    if not (older.title and newer.title):
        return VersionChange(older=older, newer=newer, recorded=False)
    fields: list[FieldChange] = []
    for name in ("title", "abstract", "comments"):
        old, new = getattr(older, name), getattr(newer, name)
        if old != new:
            fields.append(FieldChange(name=name, segments=word_diff(old, new)))
    old_authors, new_authors = _author_names(older.authors), _author_names(newer.authors)
    if old_authors != new_authors:
        fields.append(
            FieldChange(
                name="authors",
                removed=[name for name in old_authors if name not in new_authors],
                added=[name for name in new_authors if name not in old_authors],
                reordered=sorted(old_authors) == sorted(new_authors),
            )
        )
    return VersionChange(older=older, newer=newer, recorded=True, fields=fields)


def paper_detail(*, arxiv_id: str) -> PaperDetail | None:
    """A paper with every version, the changes between consecutive versions,
    the readings and HF picks (four queries), or None."""
    paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        return None
    versions = list(paper.versions.order_by("number"))
    changes = [version_change(older, newer) for older, newer in itertools.pairwise(versions)]
    readings = readings_for_versions(version_ids=[version.pk for version in versions])
    picks = list(paper.community_picks.select_related("source").order_by("-upvotes"))
    return PaperDetail(paper=paper, versions=versions, changes=changes, readings=readings, picks=picks)


# --- sources ----------------------------------------------------------------------


@dataclass(slots=True)
class SourceProgress:
    source: Source
    schedule: str | None
    last_run: HarvestRun | None
    next_run: datetime | None
    runs_24h: int = 0
    failed_24h: int = 0
    seen_24h: int = 0
    new_papers_24h: int = 0
    new_versions_24h: int = 0

    @property
    def is_failing(self) -> bool:
        return self.source.enabled and self.last_run is not None and self.last_run.status == HarvestRun.Status.FAILED


def source_progress_list(*, now: datetime | None = None) -> list[SourceProgress]:
    """Every source with its latest check, the last 24 hours and its next run (three queries)."""
    now = now or timezone.now()
    latest_run = HarvestRun.objects.filter(source=OuterRef("pk")).order_by("-started_at", "-id").values("id")[:1]
    sources = list(Source.objects.annotate(latest_run_id=Subquery(latest_run)).order_by("name"))
    runs = HarvestRun.objects.in_bulk([s.latest_run_id for s in sources if s.latest_run_id])
    recent = {
        row["source_id"]: row
        for row in HarvestRun.objects.filter(started_at__gte=now - timedelta(hours=24), started_at__lte=now)
        .values("source_id")
        .annotate(
            runs=Count("id"),
            failed=Count("id", filter=Q(status=HarvestRun.Status.FAILED)),
            seen=Sum("seen"),
            new_papers=Sum("new_papers"),
            new_versions=Sum("new_versions"),
        )
    }
    progress = []
    for source in sources:
        schedule = settings.HARVEST_SCHEDULES.get(source.slug)
        upcoming = next_runs(schedule, after=now) if schedule and source.enabled else []
        row = recent.get(source.pk, {})
        progress.append(
            SourceProgress(
                source=source,
                schedule=schedule,
                last_run=runs.get(source.latest_run_id),
                next_run=upcoming[0] if upcoming else None,
                runs_24h=row.get("runs") or 0,
                failed_24h=row.get("failed") or 0,
                seen_24h=row.get("seen") or 0,
                new_papers_24h=row.get("new_papers") or 0,
                new_versions_24h=row.get("new_versions") or 0,
            )
        )
    return progress
