"""Training a user's models from their research record (and a model per tag
when they asked for it), stored in RecommenderModel: the text model and the
model over paper embeddings, blended when scored (embedding_model.py)."""

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
from accounts.recommend.estimators import (
    EMBEDDING_BACKGROUND,
    EmbeddingModel,
    LinearModel,
    fit_embedding_model,
    fit_text_model,
    mixed,
    query_model,
)
from accounts.recommend.examples import Examples, background_paper_ids, user_examples
from accounts.recommend.features import N_FEATURES, PaperText, vectorize
from accounts.recommend.models import Recommendation, RecommenderModel, RecommenderProfile
from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.index import vectors_of
from harvest.embeddings.selectors import query_vector

logger = logging.getLogger(__name__)

# A save loses half its weight every HALF_LIFE_DAYS, down to FLOOR: recent
# saves say more about what the user reads now, old ones still count.
HALF_LIFE_DAYS = 180
FLOOR = 0.3
# Explanations compare a recommendation with this many of the newest saves.
NEIGHBOURS = 200
# The researcher's own description of their interests counts as this many
# saves in the text model, and as this share of the embedding model beside
# saves: what they said they want, but one text, not a reading history.
DESCRIPTION_WEIGHT = 3.0
DESCRIPTION_SHARE = 0.3
DESCRIPTION_ID = -1  # the description's place among the examples (no paper has it)


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


@dataclass
class Vectors:
    """Paper embeddings by paper id (the examples' and the background's), and
    the description's, when the user wrote one."""

    by_paper: dict[int, np.ndarray]
    background: np.ndarray
    description: np.ndarray | None = None

    def of(self, papers: list[PaperText]) -> np.ndarray:
        rows = [self.by_paper[p.id] for p in papers if p.id in self.by_paper]
        return np.vstack(rows) if rows else np.zeros((0, self.background.shape[1]), dtype=np.float32)


def example_vectors(examples: Examples, *, description: str = "") -> Vectors | None:
    """The embeddings the examples have, with a background of EMBEDDING_BACKGROUND recent
    papers; None when the library has none (then only the text model is trained)."""
    encoder = get_encoder()
    wanted = {p.id for p, _ in [*examples.saved, *examples.liked]}
    wanted |= {p.id for p in [*examples.negatives, *examples.disliked]}
    ids, vectors = vectors_of(
        [*wanted, *background_paper_ids(EMBEDDING_BACKGROUND, exclude=wanted)],
        model=encoder.name,
        dimension=encoder.dimension,
    )
    by_paper = dict(zip(ids, vectors, strict=True))
    background = np.vstack([by_paper[pk] for pk in ids if pk not in wanted] or [np.zeros((0, encoder.dimension))])
    if not len(background):
        return None
    text = " ".join(description.split())
    return Vectors(by_paper, background.astype(np.float32), query_vector(text) if text else None)


def _embedding_model(
    saved: list[tuple[PaperText, datetime]],
    negatives: list[PaperText],
    vectors: Vectors | None,
    now: datetime,
    *,
    picked: bool = False,
) -> EmbeddingModel | None:
    """The ridge model of the saves, mixed with the description's query model
    (alone when there are too few saves: a regression on one text learns its
    language as much as its topic, while its cosine ranks as the search does).
    Picked papers are enough on their own, from the first: a paper chosen
    from a day's papers says what the researcher reads."""
    if vectors is None:
        return None
    papers = [(p, at) for p, at in saved if p.id in vectors.by_paper]
    description = query_model(vectors.description, vectors.background) if vectors.description is not None else None
    if not papers or (len(papers) < settings.RECOMMEND_MIN_SAVES and not picked):
        if description is not None:
            # The text model's one positive is then a short text (in Chinese,
            # words it has never seen): too little to blend in.
            description.text_weight = 0.0
        return description
    positives = vectors.of([p for p, _ in papers])
    weights = recency_weights([at for _, at in papers], now)
    model = fit_embedding_model(positives, vectors.of(negatives), vectors.background, positive_weights=weights)
    return mixed(model, description, share=DESCRIPTION_SHARE) if description is not None else model


def _text_model(positives, positive_weights, negatives: list[PaperText], background: list[PaperText]) -> LinearModel:
    """The text model, its scores put in background units (as the embedding
    model's), so that the two halves blend."""
    background_vectors = vectorize(background)
    model = fit_text_model(positives, positive_weights, vectorize(negatives), background_vectors)
    scores = model.score(background_vectors)
    scale = float(np.std(scores)) or 1.0
    intercept = (model.intercept - float(np.mean(scores))) / scale
    return LinearModel(model.indices, (model.weights / scale).astype(np.float32), intercept)


def _fit(
    saved: list[tuple[PaperText, datetime]],
    negatives: list[PaperText],
    background: list[PaperText],
    now: datetime,
    *,
    vectors: Vectors | None = None,
    description: str = "",
    picked: bool = False,
):
    papers = [p for p, _ in saved]
    weights = recency_weights([at for _, at in saved], now)
    texts = papers
    if description.strip():
        texts = [*papers, PaperText(DESCRIPTION_ID, "", description)]
        weights = np.r_[weights, DESCRIPTION_WEIGHT]
    positives = vectorize(texts)
    model = _text_model(positives, weights, negatives, background)
    newest = slice(max(0, len(papers) - NEIGHBOURS), len(papers))
    neighbours = Neighbours(np.array([p.id for p in papers[newest]], dtype=np.int64), positives[: len(papers)][newest])
    return model, neighbours, _embedding_model(saved, negatives, vectors, now, picked=picked)


def train_models(
    examples: Examples, *, per_tag: bool, now: datetime, description: str = "", vectors: Vectors | None = None
) -> dict[int | None, tuple]:
    """Models by tag id (None: the whole record) from one user's examples: the
    whole record's once it has enough saves, a description of interests, or
    one picked paper."""
    minimum = settings.RECOMMEND_MIN_SAVES
    if not (examples.negatives or examples.background):
        return {}
    # Thumbs up count as saves and thumbs down as negatives, in the whole record's model.
    liked = sorted([*examples.saved, *examples.liked], key=lambda pair: pair[1])
    # Picks are a cold start of their own: one picked paper already ranks a
    # topic's other papers about as well as a description of the topic
    # (precision@10 0.31 offline, docs/recommendations.md). The minimum
    # stays for saves and thumbs: a save may be to cite or to read later, a
    # thumb is given in passing; a pick answers "what would you read".
    picked = examples.picked > 0
    if len(liked) < minimum and not description.strip() and not picked:
        return {}
    negatives = [*examples.negatives, *examples.disliked]
    models = {
        None: _fit(liked, negatives, examples.background, now, vectors=vectors, description=description, picked=picked)
    }
    if per_tag:
        for tag_id, paper_ids in examples.tags.items():
            inside = [(p, at) for p, at in examples.saved if p.id in paper_ids]
            # The user's other saves are this tag's background: other interests.
            others = [p for p, _ in examples.saved if p.id not in paper_ids]
            if len(inside) >= minimum:
                models[tag_id] = _fit(inside, examples.negatives, examples.background + others, now, vectors=vectors)
    return models


@transaction.atomic
def train_user(user: User, *, seed: int | None = None) -> list[RecommenderModel]:
    """Train and store the user's models; below the minimum of saves, remove them."""
    now = timezone.now()
    profile, _ = RecommenderProfile.objects.get_or_create(user=user)
    examples = user_examples(user, seed=seed)
    vectors = example_vectors(examples, description=profile.description)
    trained = train_models(examples, per_tag=profile.per_tag, now=now, description=profile.description, vectors=vectors)
    keep = [tag_id for tag_id in trained if tag_id is not None]
    stale = RecommenderModel.objects.filter(user=user).exclude(tag_id__in=keep)
    stale_recommendations = Recommendation.objects.filter(user=user).exclude(tag_id__in=keep)
    if None in trained:
        stale, stale_recommendations = stale.exclude(tag__isnull=True), stale_recommendations.exclude(tag__isnull=True)
    stale.delete()
    stale_recommendations.delete()
    stored = []
    for tag_id, (model, neighbours, embedding) in trained.items():
        row, _ = RecommenderModel.objects.update_or_create(
            user=user,
            tag_id=tag_id,
            defaults={
                "trained_at": now,
                "positives": int(neighbours.vectors.shape[0]) if tag_id is not None else len(examples.saved),
                "negatives": len(examples.negatives),
                "background": len(examples.background),
                "weights": model.to_bytes(),
                "embedding": embedding.to_bytes() if embedding is not None else b"",
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


def load_embedding(row: RecommenderModel) -> EmbeddingModel | None:
    return EmbeddingModel.from_bytes(row.embedding) if row.embedding else None
