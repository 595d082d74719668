"""The methods of the offline evaluation (evaluation.py): the chosen one
(embedding_model.py blended with the text model) and those it is measured
against: random, newest in the most-saved categories, nearest neighbours in
embedding space (the mean or the best of the similarities to the liked
papers), and the hashed TF-IDF linear model (model.py) alone, trained as it is
live. Each scores a simulated researcher's candidates, in their order, higher
first."""

from __future__ import annotations

import zlib
from collections import Counter

import numpy as np

from accounts.recommend.estimators import (
    RIDGE,
    TEXT_WEIGHT,
    EmbeddingModel,
    blended,
    fit_embedding_model,
    fit_text_model,
    in_background_units,
)
from accounts.recommend.evaluation import Method, Researcher
from accounts.recommend.evaluation_data import EvaluationData


def _seed(person: Researcher) -> int:
    return zlib.crc32(f"{person.topic}:{person.draw}".encode())


def random_scores(data: EvaluationData, person: Researcher) -> np.ndarray:
    return np.random.default_rng(_seed(person)).random(len(person.candidates))


def most_saved_categories(data: EvaluationData, saved: list[int]) -> set[str]:
    """The categories (primary or cross-listed) that the most saved papers list."""
    counts = Counter(code for index in saved for code in set(data.papers[index].categories))
    if not counts:
        return set()
    top = max(counts.values())
    return {code for code, count in counts.items() if count == top}


def newest_in_saved_categories(data: EvaluationData, person: Researcher) -> np.ndarray:
    """Papers in the most-saved categories first, each group newest first."""
    wanted = most_saved_categories(data, person.saved)
    inside = np.array([bool(wanted & set(data.papers[i].categories)) for i in person.candidates])
    ages = data.ages[person.candidates]
    return inside * (ages.max() - ages.min() + 1) + ages


def newest_first(data: EvaluationData, person: Researcher) -> np.ndarray:
    return data.ages[person.candidates]


def in_saved_categories(data: EvaluationData, person: Researcher) -> np.ndarray:
    """The same groups in random order: what the categories alone are worth."""
    wanted = most_saved_categories(data, person.saved)
    inside = np.array([bool(wanted & set(data.papers[i].categories)) for i in person.candidates])
    return inside + random_scores(data, person) * 0.5


def neighbours_mean(data: EvaluationData, person: Researcher) -> np.ndarray:
    return (data.embeddings[person.candidates] @ data.embeddings[person.positives].T).mean(axis=1)


def neighbours_max(data: EvaluationData, person: Researcher) -> np.ndarray:
    return (data.embeddings[person.candidates] @ data.embeddings[person.positives].T).max(axis=1)


def text_model_scores(data: EvaluationData, person: Researcher) -> tuple[np.ndarray, np.ndarray]:
    """The hashed TF-IDF model trained as live (saves and thumbs up positive,
    thumbs down explicit negatives, the background sample): its scores of the
    candidates and of the background (fitted once per researcher)."""
    if "text" not in person.fitted:
        features = data.features
        positives = features[person.positives]
        model = fit_text_model(
            positives, np.ones(positives.shape[0]), features[person.disliked], features[person.text_background]
        )
        person.fitted["text"] = model.score(features[person.candidates]), model.score(features[person.text_background])
    return person.fitted["text"]


def linear_model(data: EvaluationData, person: Researcher) -> np.ndarray:
    return text_model_scores(data, person)[0]


def embedding_model(data: EvaluationData, person: Researcher, *, ridge: float = RIDGE) -> EmbeddingModel:
    """The embedding model trained as live on the researcher's ratings and
    background (fitted once per researcher and ridge)."""
    key = ("embedding", ridge)
    if key not in person.fitted:
        vectors = data.embeddings
        person.fitted[key] = fit_embedding_model(
            vectors[person.positives], vectors[person.disliked], vectors[person.background], ridge=ridge
        )
    return person.fitted[key]


def embedding_scores(data: EvaluationData, person: Researcher, *, ridge: float = RIDGE) -> np.ndarray:
    return embedding_model(data, person, ridge=ridge).score(data.embeddings[person.candidates])


def chosen_method(*, ridge: float = RIDGE, text_weight: float = TEXT_WEIGHT) -> Method:
    def scores(data: EvaluationData, person: Researcher) -> np.ndarray:
        embedding = embedding_scores(data, person, ridge=ridge)
        if not text_weight:
            return embedding
        text, text_background = text_model_scores(data, person)
        return blended(embedding, in_background_units(text, text_background), text_weight=text_weight)

    return scores


CHOSEN = "embeddings + text (chosen)"
METHODS: dict[str, Method] = {
    CHOSEN: chosen_method(),
    "embeddings alone (ridge)": chosen_method(text_weight=0.0),
    "linear model (today's)": linear_model,
    "nearest neighbours, mean": neighbours_mean,
    "nearest neighbours, max": neighbours_max,
    "newest in most-saved categories": newest_in_saved_categories,
    "most-saved categories, random order": in_saved_categories,
    "newest first": newest_first,
    "random": random_scores,
}
