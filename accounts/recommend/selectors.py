"""Reads of recommendations for the tab, the API and the alert, and of the
user's ratings (thumbs up / down) for cards and the API; the picks page's
offer (picks.py), the trail "for you" and the score sheets' scores
(trail_order.py), listed here as recommend's face."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db.models import Exists, F, OuterRef, QuerySet, Window
from django.db.models.functions import RowNumber

from accounts.models import User
from accounts.recommend.models import NotInterested, Rating, Recommendation, RecommenderProfile
from accounts.recommend.picks import pick_day, pick_page
from accounts.recommend.scoring import window_start
from accounts.recommend.trail_order import decode_rank_cursor, for_you_page, paper_scores, ranking_seed, scores_of_users
from accounts.records.models import Record, Tag
from accounts.trail.selectors import trail_dismissed_papers, trail_papers
from harvest.models import Paper

__all__ = [
    "Neighbour",
    "RecommendationEntry",
    "RecommenderStatus",
    "decode_rank_cursor",
    "for_you_page",
    "paper_scores",
    "pick_day",
    "pick_page",
    "ranking_seed",
    "rating_get",
    "rating_list",
    "ratings_for_papers",
    "recommendation_get",
    "recommendations_for_user",
    "recommender_status",
    "scores_of_users",
    "window_start",
]


@dataclass
class Neighbour:
    paper_id: int
    arxiv_id: str
    title: str
    similarity: float


@dataclass
class RecommendationEntry:
    recommendation: Recommendation
    paper: Paper
    neighbours: list[Neighbour] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)


@dataclass
class RecommenderStatus:
    saves: int
    min_saves: int
    trained_at: datetime | None
    per_tag: bool
    tags: list[Tag]
    description: str = ""

    @property
    def ready(self) -> bool:
        return self.trained_at is not None

    @property
    def saves_missing(self) -> int:
        return max(0, self.min_saves - self.saves)


def recommender_status(user: User) -> RecommenderStatus:
    profile = RecommenderProfile.objects.filter(user=user).first()
    tags = list(Tag.objects.filter(user=user, pk__in=Recommendation.objects.filter(user=user).values("tag_id")))
    return RecommenderStatus(
        saves=Record.objects.filter(user=user).count(),
        min_saves=settings.RECOMMEND_MIN_SAVES,
        trained_at=profile.trained_at if profile else None,
        per_tag=bool(profile and profile.per_tag),
        tags=tags,
        description=profile.description if profile else "",
    )


def recommendation_get(*, user: User, recommendation_id: int) -> Recommendation | None:
    """One of the user's recommendations; None for anyone else's."""
    return Recommendation.objects.filter(user=user, pk=recommendation_id).select_related("paper").first()


def recommendations_for_user(user: User, limit: int = 20, *, tag_id: int | None = None) -> list[RecommendationEntry]:
    """The best-scored papers of the window outside the user's follows (no
    card in their trail) that they have not saved, refused or opened, each with the saved papers it is closest to
    (only those still saved) and its weightiest terms. The alert calls this."""
    rows = (
        Recommendation.objects.filter(user=user, seen_at__isnull=True, event_at__gte=window_start()).filter(
            tag_id=tag_id
        )
        if tag_id is not None
        else Recommendation.objects.filter(
            user=user, tag__isnull=True, seen_at__isnull=True, event_at__gte=window_start()
        )
    )
    rows = (
        rows.exclude(Exists(Record.objects.filter(user=user, paper_id=OuterRef("paper_id"))))
        .exclude(Exists(NotInterested.objects.filter(user=user, paper_id=OuterRef("paper_id"))))
        # Dismissed cards, and the papers the follows brought: those the trail ranks.
        .exclude(paper_id__in=trail_papers(user=user))
        .exclude(paper_id__in=trail_dismissed_papers(user_id=user.pk))
        .select_related("paper")
        .order_by("-score", "pk")[:limit]
    )
    rows = list(rows)
    wanted = {pk for row in rows for pk, _ in row.reasons.get("neighbours", [])}
    saved = {
        paper.pk: paper
        for paper in Paper.objects.filter(
            pk__in=Record.objects.filter(user=user, paper_id__in=wanted).values("paper_id")
        ).only("id", "arxiv_id", "title")
    }
    entries = []
    for row in rows:
        neighbours = [
            Neighbour(pk, saved[pk].arxiv_id, saved[pk].title, similarity)
            for pk, similarity in row.reasons.get("neighbours", [])
            if pk in saved
        ]
        entries.append(RecommendationEntry(row, row.paper, neighbours, list(row.reasons.get("terms", []))))
    return entries


def ratings_for_papers(*, user: User, paper_ids: Iterable[int]) -> dict[int, int]:
    """The user's rating (+1 / -1) of each of these papers they rated: one
    query for a page of cards, none for a visitor or an empty page."""
    ids = list(paper_ids)
    if not ids or not getattr(user, "is_authenticated", False):
        return {}
    return dict(Rating.objects.filter(user=user, paper_id__in=ids).values_list("paper_id", "value"))


def rating_get(*, user: User, paper_id: int) -> Rating | None:
    """The user's rating of a paper; None when they have not rated it (whoever else did)."""
    return Rating.objects.filter(user=user, paper_id=paper_id).select_related("paper").first()


def rating_list(*, user: User, value: int | None = None) -> QuerySet[Rating]:
    """The user's ratings, the latest change first (optionally only ups or downs)."""
    rows = Rating.objects.filter(user=user)
    if value is not None:
        rows = rows.filter(value=value)
    return rows.select_related("paper").order_by("-updated_at", "-pk")


def for_you_top_paper_ids(*, active_since: datetime, per_user: int) -> set[int]:
    """The best-scored unseen "for you" papers of each researcher who signed
    in since `active_since`, `per_user` each, as one set (deduplicated)."""
    if per_user <= 0:
        return set()
    ranked = (
        Recommendation.objects.filter(tag__isnull=True, seen_at__isnull=True, user__last_login__gte=active_since)
        .annotate(rank=Window(RowNumber(), partition_by=[F("user_id")], order_by=[F("score").desc(), F("id")]))
        .values("paper_id", "rank")
    )
    return {row["paper_id"] for row in ranked if row["rank"] <= per_user}
