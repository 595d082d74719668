"""Scoring papers for users: after each harvest page is embedded (the new
versions' papers, for every active researcher with a model) and after a
user's retraining (the window's papers, for that user). Each user's scores of
a run are kept as one score sheet (what orders the trail "for you"); each
model keeps its best TOP_PER_RUN papers of a run as recommendations, with
their explanations; rows older than the window are dropped."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from scipy import sparse

from accounts.activity import recently_active
from accounts.follows.models import Follow
from accounts.models import User
from accounts.recommend.estimators import blended, score_matrix
from accounts.recommend.examples import paper_texts
from accounts.recommend.explanation import explain
from accounts.recommend.features import N_FEATURES, PaperText, vectorize
from accounts.recommend.models import NotInterested, Recommendation, RecommenderModel, ScoreSheet, ScoringRun
from accounts.recommend.training import load, load_embedding
from accounts.records.models import Record
from accounts.trail.selectors import trail_papers_among
from harvest.badges import dated_since, version_dated
from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.index import vectors_of
from harvest.models import Version

logger = logging.getLogger(__name__)

TOP_PER_RUN = 30
USERS_PER_BATCH = 250


def window_start(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=settings.RECOMMEND_WINDOW_DAYS)


def event_times(paper_ids: Iterable[int] | None = None, *, since: datetime | None = None) -> dict[int, datetime]:
    """arXiv's date of each paper's latest version (only versions it dated
    since `since`): the window counts papers new on arXiv, not papers a
    back-fill stored lately."""
    versions = Version.objects.all()
    if since is not None:
        # Stored after arXiv dated it: the stored time bounds the range read.
        versions = versions.filter(dated_since(since), discovered_at__gte=since)
    if paper_ids is not None:
        versions = versions.filter(paper_id__in=list(paper_ids))
    times: dict[int, datetime] = {}
    for version in versions.only("paper_id", "submitted", "announced"):
        dated = version_dated(version)
        if dated is not None and (version.paper_id not in times or dated > times[version.paper_id]):
            times[version.paper_id] = dated
    return times


def _excluded(user_ids: list[int], paper_ids: list[int]) -> dict[int, set[int]]:
    """Per user, the papers among these that are no recommendation: saved,
    refused, or in their trail (dismissed or not)."""
    excluded: dict[int, set[int]] = defaultdict(set)
    for model in (Record, NotInterested):
        for user_id, paper_id in model.objects.filter(user_id__in=user_ids, paper_id__in=paper_ids).values_list(
            "user_id", "paper_id"
        ):
            excluded[user_id].add(paper_id)
    # Every trail card too: the tab holds papers outside the follows.
    for user_id, papers in trail_papers_among(user_ids=user_ids, paper_ids=paper_ids).items():
        excluded[user_id] |= papers
    return excluded


def active_models(user_ids: list[int] | None = None) -> QuerySet[RecommenderModel]:
    """The models to score with after a harvest: those of researchers who may
    read soon (signed in or used the API lately, or get email alerts)."""
    models = RecommenderModel.objects.order_by("user_id", "pk")
    if user_ids is not None:
        return models.filter(user_id__in=user_ids)
    alerted = Follow.objects.filter(user=OuterRef("pk"), muted=False).exclude(delivery=Follow.Delivery.TRAIL)
    return models.filter(user__in=User.objects.filter(recently_active() | Exists(alerted)))


def score_papers(paper_ids: Iterable[int], *, user_ids: list[int] | None = None) -> int:
    """Score these papers (those with a version in the window) for every
    active researcher's model (or those of `user_ids`): a score sheet of every
    paper for each user's whole-record model, and the best TOP_PER_RUN as
    recommendations; returns the number of recommendations written."""
    times = event_times(paper_ids, since=window_start())
    texts = paper_texts(times)
    papers = [texts[pk] for pk in sorted(texts)]
    if not papers:
        return 0
    ids = np.array([p.id for p in papers])
    vectors = vectorize(papers)
    # Transposed once: each batch multiplies its models (rows) by the papers.
    columns = vectors.T.tocsr()
    embeddings = paper_embeddings(ids)
    run = ScoringRun.objects.create(paper_ids=ids.astype("<i4").tobytes())
    batch_papers = BatchPapers(papers, ids, vectors, columns, embeddings, times)
    written, terms_cache = 0, {}
    batch: list[RecommenderModel] = []
    for row in active_models(user_ids).iterator(chunk_size=USERS_PER_BATCH):
        if len(batch) >= USERS_PER_BATCH and batch[-1].user_id != row.user_id:
            written += _score_batch(batch, batch_papers, run, terms_cache)
            batch = []
        batch.append(row)
    if batch:
        written += _score_batch(batch, batch_papers, run, terms_cache)
    return written


@dataclass
class BatchPapers:
    """A run's papers as every batch of models reads them."""

    texts: list[PaperText]
    ids: np.ndarray
    vectors: sparse.csr_matrix
    columns: sparse.csr_matrix
    embeddings: np.ndarray  # one row per paper; zeros where a paper has none yet
    times: dict[int, datetime]


def paper_embeddings(ids: np.ndarray) -> np.ndarray:
    """The papers' embeddings in `ids`' order; a paper without one scores as
    the typical background paper (0) in the embedding half."""
    encoder = get_encoder()
    found, vectors = vectors_of(ids.tolist(), model=encoder.name, dimension=encoder.dimension)
    out = np.zeros((len(ids), encoder.dimension), dtype=np.float32)
    if found:
        position = {int(pk): i for i, pk in enumerate(ids)}
        out[[position[pk] for pk in found]] = vectors
    return out


def blended_scores(rows: list[RecommenderModel], papers: BatchPapers) -> tuple[np.ndarray, list]:
    """Every model's scores of every paper (papers x models), and the loaded
    text models with their neighbours: the embedding half blended with the
    text half where the model has one, the text half alone otherwise."""
    loaded = [load(row) for row in rows]
    # Every text model of the batch as a row of one sparse matrix, built from
    # the stored arrays as they are: one product scores the batch.
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
    scores = (weights @ papers.columns).toarray().T + intercepts
    embedded = [(column, model) for column, row in enumerate(rows) if (model := load_embedding(row)) is not None]
    if embedded:
        halves = score_matrix([model for _, model in embedded], papers.embeddings).T
        columns = [column for column, _ in embedded]
        shares = np.array([model.text_weight for _, model in embedded], dtype=np.float32)
        scores[:, columns] = blended(halves, scores[:, columns], text_weight=shares)
    return scores, loaded


def _score_batch(rows: list[RecommenderModel], papers: BatchPapers, run: ScoringRun, terms_cache: dict) -> int:
    scores, loaded = blended_scores(rows, papers)
    ids = papers.ids
    excluded = _excluded(list({row.user_id for row in rows}), ids.tolist())
    now = timezone.now()
    fresh: list[tuple] = []
    sheets: list[ScoreSheet] = []
    for column, (row, (model, neighbours)) in enumerate(zip(rows, loaded, strict=True)):
        user_scores = scores[:, column].copy()
        if row.tag_id is None:
            sheets.append(ScoreSheet(run=run, user_id=row.user_id, scores=pack_scores(user_scores), computed_at=now))
        skip = excluded.get(row.user_id)
        if skip:
            user_scores[np.isin(ids, list(skip))] = -np.inf
        top = [i for i in np.argsort(-user_scores)[:TOP_PER_RUN] if np.isfinite(user_scores[i])]
        if not top:
            continue
        reasons = explain([papers.texts[i] for i in top], papers.vectors[top], model, neighbours, terms_cache)
        for i, why in zip(top, reasons, strict=True):
            paper_id = int(ids[i])
            fresh.append((row.user_id, paper_id, row.tag_id, float(user_scores[i]), why, papers.times[paper_id], now))
    with transaction.atomic():
        ScoreSheet.objects.bulk_create(sheets, batch_size=500, ignore_conflicts=True)
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


def pack_scores(scores: np.ndarray) -> bytes:
    """float16: three significant digits order a day as well as float32 does, at half the bytes."""
    return np.clip(scores, -60000, 60000).astype("<f2").tobytes()


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
    """Score the window's papers with the user's freshly trained models; the
    new sheet supersedes the user's earlier ones."""
    since = window_start()
    Recommendation.objects.filter(user_id=user_id, seen_at__isnull=True).delete()
    ScoreSheet.objects.filter(user_id=user_id).delete()
    paper_ids = list(event_times(since=since))
    return score_papers(paper_ids, user_ids=[user_id]) if paper_ids else 0


def prune(now: datetime | None = None) -> int:
    """Drop recommendations of papers whose latest version left the window,
    and the scoring runs older than it (their sheets go with them)."""
    deleted, _ = Recommendation.objects.filter(event_at__lt=window_start(now)).delete()
    ScoringRun.objects.filter(created_at__lt=window_start(now)).delete()
    return deleted
