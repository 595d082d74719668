"""The per-researcher embedding model: it learns the liked side, its scores
are in background units, many users score as one product, it stores and
loads, and it trains from 500 saves within two seconds."""

from __future__ import annotations

import time

import numpy as np
import pytest

from accounts.recommend.estimators import (
    EmbeddingModel,
    blended,
    fit_embedding_model,
    in_background_units,
    score_matrix,
)

DIMENSION = 384


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def _cluster(rng: np.random.Generator, centre: np.ndarray, count: int, spread: float = 0.6) -> np.ndarray:
    return _unit(centre + spread * rng.standard_normal((count, DIMENSION)) / np.sqrt(DIMENSION))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(28)


def test_papers_like_the_liked_ones_score_above_the_disliked_and_the_background(rng):
    liked, disliked = _unit(rng.standard_normal((2, DIMENSION)))
    background = _unit(rng.standard_normal((300, DIMENSION)))
    model = fit_embedding_model(_cluster(rng, liked, 3), _cluster(rng, disliked, 2), background)
    near_liked = model.score(_cluster(rng, liked, 50))
    near_disliked = model.score(_cluster(rng, disliked, 50))
    others = model.score(_unit(rng.standard_normal((50, DIMENSION))))
    assert near_liked.min() > others.max()
    assert near_disliked.mean() < others.mean()


def test_scores_are_in_background_units(rng):
    background = _unit(rng.standard_normal((300, DIMENSION)))
    model = fit_embedding_model(_unit(rng.standard_normal((4, DIMENSION))), np.zeros((0, DIMENSION)), background)
    scores = model.score(background)
    assert abs(float(scores.mean())) < 1e-4
    assert abs(float(scores.std()) - 1) < 1e-4
    text = rng.standard_normal(20) * 7 + 3
    assert np.allclose(in_background_units(text, text), (text - text.mean()) / text.std(), atol=1e-5)
    assert np.allclose(blended(np.ones(3), np.zeros(3), text_weight=0.25), 0.75)


def test_recent_saves_weigh_more(rng):
    old, recent = _unit(rng.standard_normal((2, DIMENSION)))
    positives = np.vstack([_cluster(rng, old, 3), _cluster(rng, recent, 3)])
    background = _unit(rng.standard_normal((300, DIMENSION)))
    model = fit_embedding_model(
        positives, np.zeros((0, DIMENSION)), background, positive_weights=np.r_[np.full(3, 0.3), np.ones(3)]
    )
    assert model.score(_cluster(rng, recent, 30)).mean() > model.score(_cluster(rng, old, 30)).mean()


def test_many_users_score_as_one_product_with_the_same_scores(rng):
    background = _unit(rng.standard_normal((300, DIMENSION)))
    models = [
        fit_embedding_model(_unit(rng.standard_normal((5, DIMENSION))), np.zeros((0, DIMENSION)), background)
        for _ in range(4)
    ]
    papers = _unit(rng.standard_normal((2600, DIMENSION)))
    scores = score_matrix(models, papers)
    assert scores.shape == (4, 2600)
    for row, model in zip(scores, models, strict=True):
        assert np.allclose(row, model.score(papers), atol=1e-4)


def test_a_stored_model_loads_as_it_was(rng):
    background = _unit(rng.standard_normal((50, DIMENSION)))
    model = fit_embedding_model(_unit(rng.standard_normal((3, DIMENSION))), background[:2], background)
    loaded = EmbeddingModel.from_bytes(model.to_bytes())
    assert loaded.weights.dtype == np.float32 and np.array_equal(loaded.weights, model.weights)
    assert loaded.intercept == pytest.approx(model.intercept, abs=1e-6)


def test_no_positives_is_a_clear_error(rng):
    with pytest.raises(ValueError, match="at least one positive"):
        fit_embedding_model(np.zeros((0, DIMENSION)), np.zeros((0, DIMENSION)), _unit(rng.standard_normal((5, 384))))


def test_training_from_500_saves_takes_under_two_seconds_and_scoring_a_day_for_1000_users_one_product(rng):
    positives = _unit(rng.standard_normal((500, DIMENSION)))
    negatives = _unit(rng.standard_normal((50, DIMENSION)))
    background = _unit(rng.standard_normal((300, DIMENSION)))
    started = time.perf_counter()
    model = fit_embedding_model(positives, negatives, background)
    assert time.perf_counter() - started < 2.0
    papers = _unit(rng.standard_normal((2600, DIMENSION)))
    started = time.perf_counter()
    scores = score_matrix([model] * 1000, papers)
    assert scores.shape == (1000, 2600)
    assert time.perf_counter() - started < 5.0
