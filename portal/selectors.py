"""What the pages and the API show of the library: paper cards (a paper with
its HF picks and the guided reading of its latest version), a paper with its
history and readings, and the papers behind a briefing. Each function runs a
fixed number of queries whatever the number of papers."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from django.db.models import QuerySet

from accounts.recommend.selectors import ratings_for_papers
from accounts.records.models import Record
from accounts.records.selectors import records_for_papers
from digests.models import GuidedReading
from digests.selectors import readings_for_versions
from harvest.badges import VersionBadge, latest_versions, version_badge
from harvest.embeddings.selectors import similar_papers
from harvest.filters import SORT_INCLUDED, SORT_UPDATED, sorted_papers
from harvest.models import CommunityPick, Paper, Version
from harvest.selectors import VersionChange, paper_history
from portal.stats.overview import done_readings, revision_versions
from portal.stats.windows import Window

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
    highlight: list[str] = field(default_factory=list)  # query terms to mark (the trail)
    similarity: float | None = None  # to the paper a "similar papers" list is about
    # The latest version's announcement day when it has no submission date yet
    # (only the feed has brought it): the card shows that instead of an older date.
    announced: date | None = None
    badge: VersionBadge | None = None  # the latest version's (harvest.badges)
    # Pages that show research-record controls set these (attach_records):
    # the reader's record of the paper, or None when not saved.
    show_record: bool = False
    record: Record | None = None
    # Pages that show thumbs up / down set these (attach_ratings): the
    # reader's rating of the paper (+1, -1), or None when not rated.
    show_rating: bool = False
    rating: int | None = None

    @property
    def top_upvotes(self) -> int:
        return max((pick.upvotes for pick in self.picks), default=0)


def attach_records(cards: Sequence[PaperCard], user) -> Sequence[PaperCard]:
    """Turn on the cards' record controls with the reader's records of their
    papers: one query for a signed-in reader, none for a visitor."""
    found = records_for_papers(user=user, paper_ids=[card.paper.pk for card in cards]) if cards else {}
    for card in cards:
        card.show_record = True
        card.record = found.get(card.paper.pk)
    return cards


def attach_ratings(cards: Sequence[PaperCard], user) -> Sequence[PaperCard]:
    """Turn on thumbs up / down with the signed-in reader's ratings of the
    cards' papers (one query for the page); a visitor's cards get none."""
    if not getattr(user, "is_authenticated", False):
        return cards
    found = ratings_for_papers(user=user, paper_ids=[card.paper.pk for card in cards])
    for card in cards:
        card.show_rating = True
        card.rating = found.get(card.paper.pk)
    return cards


def paper_cards(papers: Sequence[Paper]) -> list[PaperCard]:
    """Cards for a page of papers (three queries: picks, latest versions, readings)."""
    if not papers:
        return []
    ids = [paper.pk for paper in papers]
    picks: dict[int, list[CommunityPick]] = defaultdict(list)
    for pick in CommunityPick.objects.filter(paper_id__in=ids).select_related("source").order_by("-upvotes"):
        picks[pick.paper_id].append(pick)
    latest = latest_versions(ids)
    readings = readings_for_versions(version_ids=[version.pk for version, _badge in latest.values()])
    cards = []
    for paper in papers:
        version, badge = latest.get(paper.pk, (None, None))
        cards.append(
            PaperCard(
                paper=paper,
                picks=picks.get(paper.pk, []),
                reading=readings.get(version.pk) if version else None,
                announced=version.announced if version and version.submitted is None else None,
                badge=badge,
            )
        )
    return cards


def similar_paper_cards(paper: Paper, *, k: int = 10) -> list[PaperCard]:
    """Cards of the papers nearest this one, most similar first."""
    nearest = similar_papers(paper, k=k)
    papers = Paper.objects.in_bulk([paper_id for paper_id, _ in nearest])
    cards = paper_cards([papers[paper_id] for paper_id, _ in nearest if paper_id in papers])
    scores = dict(nearest)
    for card in cards:
        card.similarity = scores[card.paper.pk]
    return cards


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
    """Exactly the papers behind one overview number of a window, in the briefing's order (BRIEFING_SORT)."""
    return sorted_papers(_briefing_matches(kind=kind, window=window), BRIEFING_SORT[kind])


def _briefing_matches(*, kind: str, window: Window) -> QuerySet[Paper]:
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


@dataclass(slots=True)
class PaperDetail:
    paper: Paper
    versions: list[Version]
    changes: list[VersionChange]
    readings: dict[int, GuidedReading]
    picks: list[CommunityPick]
    badge: VersionBadge | None = None  # the latest stored version's (harvest.badges)


def paper_detail(*, arxiv_id: str) -> PaperDetail | None:
    """A paper with every version, the changes between consecutive versions,
    the readings and HF picks (four queries), or None."""
    history = paper_history(arxiv_id=arxiv_id)
    if history is None:
        return None
    readings = readings_for_versions(version_ids=[version.pk for version in history.versions])
    by_number = {version.number: version for version in history.versions}
    latest = history.versions[-1] if history.versions else None
    return PaperDetail(
        paper=history.paper,
        versions=history.versions,
        changes=history.changes,
        readings=readings,
        picks=history.picks,
        badge=version_badge(latest, previous=by_number.get(latest.number - 1)) if latest else None,
    )
