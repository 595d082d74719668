"""Training a user's models from their research record (and a model per tag
when they asked for it), stored in RecommenderModel."""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from scipy import sparse

from accounts.models import User
from accounts.recommend.examples import Examples, user_examples
from accounts.recommend.features import N_FEATURES, PaperText, vectorize
from accounts.recommend.model import LinearModel, fit
from accounts.recommend.models import Recommendation, RecommenderModel, RecommenderProfile

logger = logging.getLogger(__name__)

# A save loses half its weight every HALF_LIFE_DAYS, down to FLOOR: recent
# saves say more about what the user reads now, old ones still count.
HALF_LIFE_DAYS = 180
FLOOR = 0.3
# Explanations compare a recommendation with this many of the newest saves.
NEIGHBOURS = 200


@dataclass
class Neighbours:
    paper_ids: np.ndarray
    vectors: sparse.csr_matrix

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        v = self.vectors.tocsr()
        np.savez(buffer, ids=self.paper_ids, data=v.data, indices=v.indices, indptr=v.indptr)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Neighbours:
        s = np.load(io.BytesIO(bytes(data)))
        vectors = sparse.csr_matrix((s["data"], s["indices"], s["indptr"]), shape=(len(s["ids"]), N_FEATURES))
        return cls(s["ids"], vectors)


def recency_weights(saved_at: list[datetime], now: datetime) -> np.ndarray:
    ages = np.array([(now - at).total_seconds() / 86400 for at in saved_at])
    return np.maximum(FLOOR, 0.5 ** (np.maximum(ages, 0) / HALF_LIFE_DAYS))


def _fit(saved: list[tuple[PaperText, datetime]], negatives: list[PaperText], background: list[PaperText], now):
    papers = [p for p, _ in saved]
    positives = vectorize(papers)
    model = fit(positives, recency_weights([at for _, at in saved], now), vectorize(negatives), vectorize(background))
    newest = slice(max(0, len(papers) - NEIGHBOURS), len(papers))
    neighbours = Neighbours(np.array([p.id for p in papers[newest]], dtype=np.int64), positives[newest])
    return model, neighbours


def train_models(examples: Examples, *, per_tag: bool, now: datetime) -> dict[int | None, tuple]:
    """Models by tag id (None: the whole record) from one user's examples."""
    minimum = settings.RECOMMEND_MIN_SAVES
    if len(examples.saved) < minimum or not (examples.negatives or examples.background):
        return {}
    # Thumbs up count as saves and thumbs down as negatives, in the whole record's model.
    liked = sorted([*examples.saved, *examples.liked], key=lambda pair: pair[1])
    models = {None: _fit(liked, [*examples.negatives, *examples.disliked], examples.background, now)}
    if per_tag:
        for tag_id, paper_ids in examples.tags.items():
            inside = [(p, at) for p, at in examples.saved if p.id in paper_ids]
            # The user's other saves are this tag's background: other interests.
            others = [p for p, _ in examples.saved if p.id not in paper_ids]
            if len(inside) >= minimum:
                models[tag_id] = _fit(inside, examples.negatives, examples.background + others, now)
    return models


@transaction.atomic
def train_user(user: User, *, seed: int | None = None) -> list[RecommenderModel]:
    """Train and store the user's models; below the minimum of saves, remove them."""
    now = timezone.now()
    profile, _ = RecommenderProfile.objects.get_or_create(user=user)
    examples = user_examples(user, seed=seed)
    trained = train_models(examples, per_tag=profile.per_tag, now=now)
    keep = [tag_id for tag_id in trained if tag_id is not None]
    stale = RecommenderModel.objects.filter(user=user).exclude(tag_id__in=keep)
    stale_recommendations = Recommendation.objects.filter(user=user).exclude(tag_id__in=keep)
    if None in trained:
        stale, stale_recommendations = stale.exclude(tag__isnull=True), stale_recommendations.exclude(tag__isnull=True)
    stale.delete()
    stale_recommendations.delete()
    stored = []
    for tag_id, (model, neighbours) in trained.items():
        row, _ = RecommenderModel.objects.update_or_create(
            user=user,
            tag_id=tag_id,
            defaults={
                "trained_at": now,
                "positives": int(neighbours.vectors.shape[0]) if tag_id is not None else len(examples.saved),
                "negatives": len(examples.negatives),
                "background": len(examples.background),
                "weights": model.to_bytes(),
                "neighbours": neighbours.to_bytes(),
            },
        )
        stored.append(row)
    profile.trained_at = now if trained else None
    profile.save(update_fields=["trained_at"])
    logger.info("trained %d recommendation models for user %s", len(stored), user.pk)
    return stored


def load(row: RecommenderModel) -> tuple[LinearModel, Neighbours]:
    return LinearModel.from_bytes(row.weights), Neighbours.from_bytes(row.neighbours)
