"""The trail "for you": within each day (in the reader's time zone, newest day
first) the cards ordered by the reader's score (their score sheets), each
with why it ranks there; a saved paper has no score here (it taught the model,
so it would top the day, but the reader knows it): its card comes last. Only
reads: the scores are written by the scoring after each harvest and after the
reader's retraining (scoring.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import numpy as np

from accounts.models import User
from accounts.recommend.debounce import retrain_pending
from accounts.recommend.examples import paper_texts
from accounts.recommend.explanation import explain
from accounts.recommend.features import vectorize
from accounts.recommend.models import Rating, RecommenderModel, RecommenderProfile, ScoreSheet
from accounts.recommend.training import load
from accounts.records.models import Record
from accounts.shared.cursors import InvalidCursor, pack_cursor, unpack_cursor
from accounts.trail.selectors import (
    MAX_PAGE,
    TrailEntry,
    TrailPage,
    trail_card_times,
    trail_entries,
    trail_newest_time,
)
from harvest.models import Paper

UNSCORED = -math.inf  # a card without a score (no model yet, or scored before the window) comes last in its day
# A harvest page's versions are scored minutes after they arrive; sheets from
# a little before a day began may hold scores of its first cards.
_SHEET_MARGIN = timedelta(hours=1)
_CURSOR_PREFIX = "for-you"


@dataclass(frozen=True)
class RankCursor:
    """A card's place in the "for you" order: its day, score, event time and id."""

    day: date
    score: float
    at: datetime
    item_id: int

    @property
    def key(self) -> tuple[float, datetime, int]:
        return (self.score, self.at, self.item_id)

    def encode(self) -> str:
        return pack_cursor(
            f"{_CURSOR_PREFIX}|{self.day.isoformat()}|{self.score!r}|{self.at.isoformat()}|{self.item_id}"
        )


def decode_rank_cursor(cursor: str) -> RankCursor:
    try:
        prefix, day, score, at, item_id = unpack_cursor(cursor).split("|")
        if prefix != _CURSOR_PREFIX:
            raise ValueError("not a ranked cursor")
        parsed = RankCursor(date.fromisoformat(day), float(score), datetime.fromisoformat(at), int(item_id))
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidCursor("not a trail cursor") from error
    if parsed.at.tzinfo is None or math.isnan(parsed.score):
        raise InvalidCursor("not a trail cursor")
    return parsed


def paper_scores(user_id: int, paper_ids: list[int], *, since: datetime) -> dict[int, float]:
    """The user's latest score of each of these papers among the sheets
    computed since `since` (a later sheet, after a retraining, wins); none of
    the papers they saved."""
    if not paper_ids:
        return {}
    wanted = np.asarray(paper_ids, dtype=np.int64)
    found: dict[int, float] = {}
    sheets = (
        ScoreSheet.objects.filter(user_id=user_id, computed_at__gte=since)
        .order_by("computed_at", "pk")
        .values_list("run__paper_ids", "scores")
    )
    for ids_data, scores_data in sheets:
        ids = np.frombuffer(bytes(ids_data), dtype="<i4").astype(np.int64)
        scores = np.frombuffer(bytes(scores_data), dtype="<f2")
        hit = np.isin(ids, wanted)
        found.update(zip(ids[hit].tolist(), scores[hit].astype(np.float64).tolist(), strict=True))
    if found:  # a reader without scores needs no second query
        for paper_id in Record.objects.filter(user_id=user_id, paper_id__in=list(found)).values_list(
            "paper_id", flat=True
        ):
            del found[paper_id]
    return found


def scores_of_users(wanted: dict[int, set[int]], *, since: datetime) -> dict[int, dict[int, float]]:
    """paper_scores for many users at once (one query, a second for their saves): an alert batch's."""
    found: dict[int, dict[int, float]] = {user_id: {} for user_id in wanted}
    sheets = (
        ScoreSheet.objects.filter(user_id__in=[user_id for user_id, ids in wanted.items() if ids])
        .filter(computed_at__gte=since)
        .order_by("user_id", "computed_at", "pk")
        .values_list("user_id", "run__paper_ids", "scores")
    )
    for user_id, ids_data, scores_data in sheets.iterator(chunk_size=200):
        ids = np.frombuffer(bytes(ids_data), dtype="<i4").astype(np.int64)
        scores = np.frombuffer(bytes(scores_data), dtype="<f2")
        hit = np.isin(ids, np.fromiter(wanted[user_id], dtype=np.int64))
        found[user_id].update(zip(ids[hit].tolist(), scores[hit].astype(np.float64).tolist(), strict=True))
    scored = {user_id for user_id, scores in found.items() if scores}
    if scored:
        saved = Record.objects.filter(user_id__in=scored, paper_id__in={pk for u in scored for pk in found[u]})
        for user_id, paper_id in saved.values_list("user_id", "paper_id"):
            found[user_id].pop(paper_id, None)
    return found


def day_bounds(day: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time.min, tzinfo=zone)
    return start, datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)


def for_you_page(
    *,
    user: User,
    follow_id: int | None = None,
    kind: str | None = None,
    unread_only: bool = False,
    cursor: str | None = None,
    size: int = 20,
) -> TrailPage:
    """One page of the trail in the "for you" order (a day at a time, so the
    cost is one day's cards, never the whole trail). Raises InvalidCursor."""
    size = max(1, min(size, MAX_PAGE))
    zone = ZoneInfo(user.time_zone)
    filters = {"user": user, "follow_id": follow_id, "kind": kind, "unread_only": unread_only}
    position = decode_rank_cursor(cursor) if cursor else None
    if position is not None:
        day: date | None = position.day
    else:
        newest = trail_newest_time(**filters)
        day = newest.astimezone(zone).date() if newest else None
    chosen: list[tuple[date, float, datetime, int]] = []
    while day is not None and len(chosen) <= size:
        start, end = day_bounds(day, zone)
        cards = trail_card_times(**filters, since=start, before=end)
        scores = paper_scores(user.pk, [paper_id for _, paper_id, _ in cards], since=start - _SHEET_MARGIN)
        ranked = sorted(
            ((scores.get(paper_id, UNSCORED), at, item_id) for item_id, paper_id, at in cards), reverse=True
        )
        if position is not None and position.day == day:
            ranked = [key for key in ranked if key < position.key]
        chosen += [(day, *key) for key in ranked[: size + 1 - len(chosen)]]
        older = trail_newest_time(**filters, before=start)
        day = older.astimezone(zone).date() if older else None
    more = len(chosen) > size
    chosen = chosen[:size]
    entries = trail_entries(user=user, item_ids=[item_id for *_, item_id in chosen])
    score_of = {item_id: score for _, score, _, item_id in chosen}
    for entry in entries:
        score = score_of.get(entry.item_id, UNSCORED)
        entry.score = None if score == UNSCORED else round(score, 3)
    explain_entries(user, entries)
    last = chosen[-1] if chosen else None
    return TrailPage(entries=entries, next_cursor=RankCursor(*last).encode() if more and last else None)


@dataclass
class Closest:
    paper_id: int
    arxiv_id: str
    title: str
    similarity: float


def explain_entries(user: User, entries: list[TrailEntry]) -> None:
    """Why each scored entry ranks where it does: the saved papers it is
    closest to and its weightiest terms in the user's model (the follows that
    matched are the entry's own)."""
    scored = [entry for entry in entries if entry.score is not None]
    row = RecommenderModel.objects.filter(user=user, tag__isnull=True).first()
    if not scored or row is None:
        return
    model, neighbours = load(row)
    texts = paper_texts([entry.paper.pk for entry in scored])
    papers = [texts[entry.paper.pk] for entry in scored if entry.paper.pk in texts]
    reasons = dict(zip((p.id for p in papers), explain(papers, vectorize(papers), model, neighbours, {}), strict=True))
    near_ids = {pk for why in reasons.values() for pk, _ in why["neighbours"]}
    still_saved = Record.objects.filter(user=user, paper_id__in=near_ids).values("paper_id")
    near = {paper.pk: paper for paper in Paper.objects.filter(pk__in=still_saved).only("id", "arxiv_id", "title")}
    for entry in scored:
        why = reasons.get(entry.paper.pk, {"neighbours": [], "terms": []})
        entry.closest = [
            Closest(pk, near[pk].arxiv_id, near[pk].title, similarity)
            for pk, similarity in why["neighbours"]
            if pk in near and pk != entry.paper.pk
        ]
        entry.terms = list(why["terms"])


@dataclass
class RankingSeed:
    """What the user's ranking was trained from, for the trail to say."""

    saves: int
    description: bool
    trained_at: datetime | None
    picks: int = 0  # papers picked from a day's papers (the picks page)
    updating: bool = False  # a save, thumb or pick is not learnt yet (seconds, with a worker)

    @property
    def ready(self) -> bool:
        return self.trained_at is not None


def ranking_seed(user: User) -> RankingSeed:
    """One query for a researcher without a ranking; the saves and picks are counted only for one with it."""
    profile = RecommenderProfile.objects.filter(user=user).only("description", "trained_at").first()
    updating = retrain_pending(user.pk)
    if profile is None or profile.trained_at is None:
        description = bool(profile and profile.description.strip())
        return RankingSeed(saves=0, description=description, trained_at=None, updating=updating)
    picks = Rating.objects.filter(user=user, source=Rating.Source.PICK, value=Rating.Value.UP)
    return RankingSeed(
        saves=Record.objects.filter(user=user).count(),
        description=bool(profile.description.strip()),
        trained_at=profile.trained_at,
        # A picked paper saved since counts as a save.
        picks=picks.exclude(paper_id__in=Record.objects.filter(user=user).values("paper_id")).count(),
        updating=updating,
    )
