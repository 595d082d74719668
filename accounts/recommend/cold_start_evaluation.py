"""The cold start measured (docs/recommendations.md): a researcher who has
saved nothing describes their interests in a few sentences, as the search
evaluation's information needs are written (their paraphrase and question,
in English and in Chinese); the description, embedded as a query, ranks the
collection and the need's relevant papers must come first. And the same
simulated researchers as the main evaluation (three saves, a thumbs up, two
thumbs down) with and without the description beside their saves, which
is what DESCRIPTION_SHARE was chosen on."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import sparse
from threadpoolctl import threadpool_limits

from accounts.recommend.estimators import (
    blended,
    fit_text_model,
    in_background_units,
    mixed,
    query_model,
)
from accounts.recommend.evaluation import (
    METRICS,
    Report,
    Researcher,
    eligible,
    metrics,
    ranked,
    researchers,
    standard_error,
)
from accounts.recommend.evaluation_data import EvaluationData
from accounts.recommend.evaluation_methods import CHOSEN, METHODS, embedding_model
from accounts.recommend.features import PaperText, vectorize
from accounts.recommend.training import DESCRIPTION_SHARE, DESCRIPTION_WEIGHT
from harvest.search_evaluation import Collection

DESCRIPTIONS = (("en", "paraphrase"), ("en", "question"), ("zh", "paraphrase"), ("zh", "question"))


def descriptions(collection: Collection) -> dict[str, dict[tuple[str, str], str]]:
    return {
        need.id: {(language, style): need.queries[language][style] for language, style in DESCRIPTIONS}
        for need in collection.needs
    }


def description_alone(
    data: EvaluationData, texts: dict, embed: Callable[[str], np.ndarray], *, topics: Sequence[str] | None = None
) -> dict[str, dict[str, list[float]]]:
    """Per description form: each eligible topic's metrics (in topic order; of
    `topics` only when given) of the description's query model ranking the
    whole collection."""
    rng = np.random.default_rng(28)
    everything = np.arange(len(data.papers))
    background = data.embeddings[rng.choice(everything, size=min(1000, len(everything)), replace=False)]
    found: dict[str, dict] = {}
    for language, style in DESCRIPTIONS:
        values: dict[str, list[float]] = {metric: [] for metric in METRICS}
        for topic in data.topics:
            if not eligible(topic) or (topics is not None and topic.id not in topics):
                continue
            model = query_model(embed(texts[topic.id][(language, style)]), background)
            order = list(everything[np.argsort(-model.score(data.embeddings), kind="stable")])
            for metric, value in metrics(order, topic.relevant).items():
                values[metric].append(value)
        found[f"description alone ({language}, {style})"] = values
    return found


def _with_description(data: EvaluationData, person: Researcher, description: np.ndarray, text: str) -> np.ndarray:
    """The live method's scores of the candidates, the description beside the saves as training.py puts it."""
    vectors = data.embeddings
    background = vectors[person.background]
    model = mixed(embedding_model(data, person), query_model(description, background), share=DESCRIPTION_SHARE)
    features = data.features
    positives = sparse.vstack([features[person.positives], vectorize([PaperText(-1, "", text)])]).tocsr()
    weights = np.r_[np.ones(len(person.positives)), DESCRIPTION_WEIGHT]
    text_model = fit_text_model(positives, weights, features[person.disliked], features[person.text_background])
    text_scores = in_background_units(
        text_model.score(features[person.candidates]), text_model.score(features[person.text_background])
    )
    return blended(model.score(vectors[person.candidates]), text_scores)


def saves_with_description(
    data: EvaluationData,
    texts: dict,
    embed: Callable[[str], np.ndarray],
    *,
    draws: int,
    topics: Sequence[str] | None,
    people: list[Researcher] | None = None,
) -> Report:
    """`people`: the main evaluation's researchers when it has run (their fitted
    models are reused), else drawn here."""
    people = people if people is not None else researchers(data, draws=draws, topics=topics)
    report = Report(len(data.papers), people)
    variants = {
        "three saves and thumbs (the main evaluation)": None,
        "the same, with an English description": ("en", "paraphrase"),
        "the same, with a Chinese description": ("zh", "paraphrase"),
    }
    with threadpool_limits(limits=1):
        for name, form in variants.items():
            values: dict[str, list[float]] = {metric: [] for metric in METRICS}
            for person in people:
                if form is None:
                    scores = METHODS[CHOSEN](data, person)  # the same models as below without a description
                else:
                    text = texts[person.topic][form]
                    scores = _with_description(data, person, embed(text), text)
                for metric, value in metrics(ranked(scores, person), person.held_back).items():
                    values[metric].append(value)
            report.scores[name] = values
    return report


def cold_start_table(alone: dict[str, dict], beside: Report, topics: Sequence[str] | None = None) -> str:
    lines = [
        "Cold start: a description alone (no save), every eligible topic's relevant papers to find",
        "",
        "| description | " + " | ".join(METRICS) + " |",
        "| --- | " + " | ".join("---:" for _ in METRICS) + " |",
    ]
    lines += [
        f"| {name} | " + " | ".join(f"{np.mean(row[m]):.3f} ± {standard_error(row[m]):.3f}" for m in METRICS) + " |"
        for name, row in alone.items()
    ]
    lines += [
        "",
        "A description beside three saves and thumbs (the main evaluation's researchers)",
        "",
        "| researcher | " + " | ".join(METRICS) + " |",
        "| --- | " + " | ".join("---:" for _ in METRICS) + " |",
    ]
    for name in beside.scores:
        cells = [f"{beside.mean(name, m, topics):.3f} ± {beside.standard_error(name, m, topics):.3f}" for m in METRICS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
