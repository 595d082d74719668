"""Reads of the library: a paper with its version history and what changed
between versions, and the progress of each source.

Every function runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.utils import timezone

from harvest.badges import texts_compared
from harvest.models import CommunityPick, HarvestRun, Paper, Source, Version
from harvest.source_rows import configured_slugs
from harvest.sources.registry import SOURCES
from papertrail.schedules import next_runs

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
    if not texts_compared(older, newer):
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


@dataclass(slots=True)
class PaperHistory:
    paper: Paper
    versions: list[Version]
    changes: list[VersionChange]
    picks: list[CommunityPick]


def paper_history(*, arxiv_id: str) -> PaperHistory | None:
    """A paper with every version, the changes between consecutive versions
    and its HF picks (three queries), or None."""
    paper = Paper.objects.filter(arxiv_id=arxiv_id).first()
    if paper is None:
        return None
    versions = list(paper.versions.order_by("number"))
    changes = [version_change(older, newer) for older, newer in itertools.pairwise(versions)]
    picks = list(paper.community_picks.select_related("source").order_by("-upvotes"))
    return PaperHistory(paper=paper, versions=versions, changes=changes, picks=picks)


# --- sources ----------------------------------------------------------------------


SUCCEEDED = (HarvestRun.Status.OK, HarvestRun.Status.EMPTY)  # an empty check is not a failure
# A check runs for minutes (the OAI-PMH one pages for longer): a source is behind
# only when a due check has not succeeded within this.
CHECK_GRACE = timedelta(hours=1)


@dataclass(slots=True)
class SourceProgress:
    source: Source
    schedule: str | None  # every cron expression of the source, each with its zone
    last_run: HarvestRun | None
    next_run: datetime | None
    runs_24h: int = 0
    failed_24h: int = 0
    seen_24h: int = 0
    new_papers_24h: int = 0
    new_versions_24h: int = 0
    schedules: list[tuple[str, str]] = field(default_factory=list)  # (cron expression, zone)
    last_success: HarvestRun | None = None  # the latest check that ended without an error
    missed_since: datetime | None = None  # a scheduled check due since the last success that has not succeeded

    @property
    def is_failing(self) -> bool:
        return self.source.enabled and self.last_run is not None and self.last_run.status == HarvestRun.Status.FAILED


def _schedules_of(slug: str) -> list[tuple[str, str]]:
    """The source's beat entries: its UTC cron and its zoned ones (the feed's
    polls, the evening OAI-PMH run)."""
    found = [(settings.HARVEST_SCHEDULES[slug], "UTC")] if slug in settings.HARVEST_SCHEDULES else []
    for entry_slug, zoned in settings.ZONED_HARVEST_SCHEDULES.values():
        if entry_slug == slug:
            found.extend((text, zoned.zone) for text in zoned.expressions)
    return found


def _next_run_of(slug: str, *, after: datetime) -> datetime | None:
    """The earliest next run over all of the source's beat entries."""
    upcoming = next_runs(settings.HARVEST_SCHEDULES[slug], after=after) if slug in settings.HARVEST_SCHEDULES else []
    for entry_slug, zoned in settings.ZONED_HARVEST_SCHEDULES.values():
        if entry_slug == slug and (moment := zoned.next_run(after)) is not None:
            upcoming.append(moment)
    return min(upcoming, default=None)


def _with_configured(sources: list[Source]) -> list[Source]:
    """The stored rows and, for a configured source without one yet (its row
    comes at `migrate`), an unsaved enabled row, so every source is listed."""
    stored = {source.slug for source in sources}
    for slug in configured_slugs():
        if slug not in stored:
            unsaved = Source(slug=slug, name=SOURCES[slug].name, enabled=True)
            unsaved.latest_run_id = unsaved.latest_success_id = None
            sources.append(unsaved)
    return sorted(sources, key=lambda source: (source.name.casefold(), source.slug))


def source_progress_list(*, now: datetime | None = None) -> list[SourceProgress]:
    """Every configured or stored source with its latest check, the last 24
    hours and its next run (three queries)."""
    now = now or timezone.now()
    latest_run = HarvestRun.objects.filter(source=OuterRef("pk")).order_by("-started_at", "-id").values("id")[:1]
    latest_success = (
        HarvestRun.objects.filter(source=OuterRef("pk"), status__in=SUCCEEDED, finished_at__isnull=False)
        .order_by("-started_at", "-id")
        .values("id")[:1]
    )
    sources = _with_configured(
        list(Source.objects.annotate(latest_run_id=Subquery(latest_run), latest_success_id=Subquery(latest_success)))
    )
    runs = HarvestRun.objects.in_bulk(
        [pk for s in sources for pk in (s.latest_run_id, s.latest_success_id) if pk is not None]
    )
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
        schedules = _schedules_of(source.slug)
        row = recent.get(source.pk, {}) if source.pk else {}
        last_success = runs.get(source.latest_success_id)
        progress.append(
            SourceProgress(
                source=source,
                schedule="; ".join(f"{text} ({zone})" for text, zone in schedules) or None,
                schedules=schedules,
                last_run=runs.get(source.latest_run_id),
                next_run=_next_run_of(source.slug, after=now) if source.enabled else None,
                runs_24h=row.get("runs") or 0,
                failed_24h=row.get("failed") or 0,
                seen_24h=row.get("seen") or 0,
                new_papers_24h=row.get("new_papers") or 0,
                new_versions_24h=row.get("new_versions") or 0,
                last_success=last_success,
                missed_since=_missed_since(source, last_success, now=now),
            )
        )
    return progress


def _missed_since(source: Source, last_success: HarvestRun | None, *, now: datetime) -> datetime | None:
    """When a scheduled check came due after the last success and has not
    succeeded since, allowing it `CHECK_GRACE` to finish; None while the
    source keeps to its schedule (or has none, or is disabled)."""
    if not source.enabled or last_success is None:
        return None
    due = _next_run_of(source.slug, after=last_success.started_at)
    return due if due is not None and due + CHECK_GRACE < now else None
