"""Scoring papers for users: after each harvest (the new versions' papers,
for every user with a model) and after a user's retraining (the window's
papers, for that user). Each model keeps its best TOP_PER_RUN papers of a run
with their explanations; rows older than the window are dropped."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone
from scipy import sparse

from accounts.recommend.examples import paper_texts
from accounts.recommend.explanation import explain
from accounts.recommend.features import N_FEATURES, vectorize
from accounts.recommend.models import NotInterested, Recommendation, RecommenderModel
from accounts.recommend.training import load
from accounts.records.models import Record
from accounts.trail.models import TrailItem
from harvest.models import Version

logger = logging.getLogger(__name__)

TOP_PER_RUN = 30
USERS_PER_BATCH = 250


def window_start(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=settings.RECOMMEND_WINDOW_DAYS)


def event_times(paper_ids: Iterable[int] | None = None, *, since: datetime | None = None) -> dict[int, datetime]:
    """When each paper's latest version arrived here (only versions since `since`)."""
    versions = Version.objects.all()
    if since is not None:
        versions = versions.filter(discovered_at__gte=since)
    if paper_ids is not None:
        versions = versions.filter(paper_id__in=list(paper_ids))
    return dict(versions.values("paper_id").annotate(at=Max("discovered_at")).values_list("paper_id", "at"))


def _excluded(user_ids: list[int], paper_ids: list[int]) -> dict[int, set[int]]:
    """Per user, the papers among these that they saved, dismissed or refused."""
    excluded: dict[int, set[int]] = defaultdict(set)
    for model in (Record, NotInterested):
        for user_id, paper_id in model.objects.filter(user_id__in=user_ids, paper_id__in=paper_ids).values_list(
            "user_id", "paper_id"
        ):
            excluded[user_id].add(paper_id)
    for user_id, paper_id in TrailItem.objects.filter(
        user_id__in=user_ids, paper_id__in=paper_ids, dismissed=True
    ).values_list("user_id", "paper_id"):
        excluded[user_id].add(paper_id)
    return excluded


def score_papers(paper_ids: Iterable[int], *, user_ids: list[int] | None = None) -> int:
    """Score these papers (those with a version in the window) for every model
    (or those of `user_ids`); returns the number of recommendations written."""
    times = event_times(paper_ids, since=window_start())
    texts = paper_texts(times)
    papers = [texts[pk] for pk in sorted(texts)]
    if not papers:
        return 0
    ids = np.array([p.id for p in papers])
    vectors = vectorize(papers)
    # Transposed once: each batch multiplies its models (rows) by the papers.
    columns = vectors.T.tocsr()
    models = RecommenderModel.objects.order_by("user_id", "pk")
    if user_ids is not None:
        models = models.filter(user_id__in=user_ids)
    written, terms_cache = 0, {}
    batch: list[RecommenderModel] = []
    for row in models.iterator(chunk_size=USERS_PER_BATCH):
        if len(batch) >= USERS_PER_BATCH and batch[-1].user_id != row.user_id:
            written += _score_batch(batch, papers, ids, vectors, columns, times, terms_cache)
            batch = []
        batch.append(row)
    if batch:
        written += _score_batch(batch, papers, ids, vectors, columns, times, terms_cache)
    return written


def _score_batch(rows, papers, ids, vectors, columns, times, terms_cache) -> int:
    loaded = [load(row) for row in rows]
    # Every model of the batch as a row of one sparse matrix, built from the
    # stored arrays as they are: one product scores the batch.
    lengths = [len(model.indices) for model, _ in loaded]
    weights = sparse.csr_matrix(
        (
            np.concatenate([model.weights for model, _ in loaded]),
            np.concatenate([model.indices for model, _ in loaded]),
            np.r_[0, np.cumsum(lengths)],
        ),
        shape=(len(loaded), N_FEATURES),
    )
    intercepts = np.array([model.intercept for model, _ in loaded], dtype=np.float32)
    scores = (weights @ columns).toarray().T + intercepts
    excluded = _excluded(list({row.user_id for row in rows}), ids.tolist())
    now = timezone.now()
    fresh: list[tuple] = []
    for column, (row, (model, neighbours)) in enumerate(zip(rows, loaded, strict=True)):
        user_scores = scores[:, column].copy()
        skip = excluded.get(row.user_id)
        if skip:
            user_scores[np.isin(ids, list(skip))] = -np.inf
        top = [i for i in np.argsort(-user_scores)[:TOP_PER_RUN] if np.isfinite(user_scores[i])]
        if not top:
            continue
        reasons = explain([papers[i] for i in top], vectors[top], model, neighbours, terms_cache)
        for i, why in zip(top, reasons, strict=True):
            paper_id = int(ids[i])
            fresh.append((row.user_id, paper_id, row.tag_id, float(user_scores[i]), why, times[paper_id], now))
    with transaction.atomic():
        # The run's papers are scored afresh for these users (a batch holds
        # every model of its users): their old rows go, except seen ones.
        seen = set(
            Recommendation.objects.filter(
                user_id__in=[r.user_id for r in rows], paper_id__in=ids.tolist(), seen_at__isnull=False
            ).values_list("user_id", "tag_id", "paper_id")
        )
        Recommendation.objects.filter(
            user_id__in=[r.user_id for r in rows], paper_id__in=ids.tolist(), seen_at__isnull=True
        ).delete()
        fresh = [r for r in fresh if (r[0], r[2], r[1]) not in seen]
        _write(fresh)
    return len(fresh)


def _write(rows: list[tuple]) -> None:
    """Insert the rows: COPY on PostgreSQL (a day writes hundreds of thousands
    of rows; building model instances cost more than the scoring), the ORM elsewhere."""
    if connection.vendor != "postgresql":
        fields = ("user_id", "paper_id", "tag_id", "score", "reasons", "event_at", "computed_at")
        Recommendation.objects.bulk_create([Recommendation(**dict(zip(fields, row, strict=True))) for row in rows])
        return
    columns = "user_id, paper_id, tag_id, score, reasons, event_at, computed_at"
    statement = f"COPY accounts_recommendation ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for user_id, paper_id, tag_id, score, why, event_at, computed_at in rows:
            copy.write_row((user_id, paper_id, tag_id, score, json.dumps(why), event_at, computed_at))


def rescore_user(user_id: int) -> int:
    """Score the window's papers with the user's freshly trained models."""
    since = window_start()
    Recommendation.objects.filter(user_id=user_id, seen_at__isnull=True).delete()
    paper_ids = list(event_times(since=since))
    return score_papers(paper_ids, user_ids=[user_id]) if paper_ids else 0


def prune(now: datetime | None = None) -> int:
    """Drop recommendations of papers whose latest version left the window."""
    deleted, _ = Recommendation.objects.filter(event_at__lt=window_start(now)).delete()
    return deleted
