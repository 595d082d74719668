"""The offline evaluation (docs/recommendations.md): simulated researchers on
the search evaluation collection, whose topics are its information needs
(they cut across arXiv categories; relevance was judged by reading, so no
model feature decides it).

A simulated researcher of a topic saves SAVES papers drawn from those squarely
on it (grade 2), gives a thumbs up to one more relevant paper of the topic and
a thumbs down to THUMBS_DOWN papers squarely on other topics (and relevant to
none of this one). Every method ranks the whole collection minus those six
papers; the topic's other relevant papers (held back, grades 2 and 1) must come
back. DRAWS researchers per topic, drawn with a fixed seed."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from accounts.recommend.estimators import EMBEDDING_BACKGROUND
from accounts.recommend.evaluation_data import EvaluationData, Topic
from accounts.recommend.examples import BACKGROUND_SIZE

SAVES = 3
THUMBS_UP = 1
THUMBS_DOWN = 2
DRAWS = 10
SEED = 28
# The learned models' background, drawn from the candidates as the live
# training draws it from the newest papers (so it may hold relevant ones): the
# embedding model reads EMBEDDING_BACKGROUND (embedding_model.py), the text
# model the first TEXT_BACKGROUND of the same draw, as many as it reads live.
TEXT_BACKGROUND = BACKGROUND_SIZE
METRICS = ("precision@10", "recall@10", "nDCG@10", "recall@50")


@dataclass
class Researcher:
    topic: str
    draw: int
    saved: list[int]  # paper indices
    liked: list[int]  # thumbs up
    disliked: list[int]  # thumbs down
    held_back: dict[int, int]  # paper index -> grade
    candidates: np.ndarray  # paper indices the methods rank
    background: np.ndarray  # a sample of the candidates, in random order
    # The models fitted for this researcher, by kind: methods that train the
    # same model (the chosen method, the embeddings alone, the text model
    # alone, the cold start's variants) fit it once (evaluation_methods.py).
    fitted: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def positives(self) -> list[int]:
        return self.saved + self.liked

    @property
    def text_background(self) -> np.ndarray:
        return self.background[:TEXT_BACKGROUND]


# A method scores a researcher's candidates (higher first), in their order.
Method = Callable[[EvaluationData, Researcher], np.ndarray]


def eligible(topic: Topic) -> bool:
    """Enough papers squarely on the topic to save, and some left to find."""
    return len(topic.squarely) >= SAVES and len(topic.relevant) > SAVES + THUMBS_UP


def researchers(data: EvaluationData, *, draws: int = DRAWS, topics: Sequence[str] | None = None) -> list[Researcher]:
    squarely_somewhere = sorted({index for topic in data.topics for index in topic.squarely})
    found = []
    for topic in data.topics:
        if not eligible(topic) or (topics is not None and topic.id not in topics):
            continue
        for draw in range(draws):
            rng = random.Random(f"{SEED}:{topic.id}:{draw}")
            saved = rng.sample(topic.squarely, SAVES)
            liked = rng.sample(sorted(set(topic.relevant) - set(saved)), THUMBS_UP)
            others = [index for index in squarely_somewhere if index not in topic.relevant]
            disliked = rng.sample(others, THUMBS_DOWN)
            rated = {*saved, *liked, *disliked}
            candidates = np.array([index for index in range(len(data.papers)) if index not in rated])
            background = np.array(rng.sample(list(candidates), min(EMBEDDING_BACKGROUND, len(candidates))))
            held_back = {index: grade for index, grade in topic.relevant.items() if index not in rated}
            found.append(Researcher(topic.id, draw, saved, liked, disliked, held_back, candidates, background))
    return found


def ranked(scores: np.ndarray, person: Researcher) -> list[int]:
    """The candidates' paper indices, best first (ties in candidate order)."""
    return list(person.candidates[np.argsort(-scores, kind="stable")])


def standard_error(values: Sequence[float]) -> float:
    return float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else 0.0


def precision_at(ranking: Sequence[int], relevant: dict[int, int], k: int) -> float:
    return sum(1 for index in ranking[:k] if index in relevant) / k


def recall_at(ranking: Sequence[int], relevant: dict[int, int], k: int) -> float:
    return sum(1 for index in ranking[:k] if index in relevant) / len(relevant) if relevant else 0.0


def ndcg_at(ranking: Sequence[int], relevant: dict[int, int], k: int) -> float:
    """Graded gains (2, 1), log2 discount, the ideal from the held-back grades."""
    gain = sum(relevant.get(index, 0) / math.log2(rank + 2) for rank, index in enumerate(ranking[:k]))
    ideal = sum(grade / math.log2(rank + 2) for rank, grade in enumerate(sorted(relevant.values(), reverse=True)[:k]))
    return gain / ideal if ideal else 0.0


def metrics(ranking: Sequence[int], relevant: dict[int, int]) -> dict[str, float]:
    return {
        "precision@10": precision_at(ranking, relevant, 10),
        "recall@10": recall_at(ranking, relevant, 10),
        "nDCG@10": ndcg_at(ranking, relevant, 10),
        "recall@50": recall_at(ranking, relevant, 50),
    }


@dataclass
class Report:
    papers: int
    people: list[Researcher]
    # method -> metric -> one value per researcher (in `people` order)
    scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    @property
    def topics(self) -> list[str]:
        return sorted({person.topic for person in self.people})

    def topic_means(self, method: str, metric: str, topics: Sequence[str] | None = None) -> dict[str, float]:
        """Each topic's mean over its draws."""
        by_topic: dict[str, list[float]] = {}
        for person, value in zip(self.people, self.scores[method][metric], strict=True):
            if topics is None or person.topic in topics:
                by_topic.setdefault(person.topic, []).append(value)
        return {topic: sum(values) / len(values) for topic, values in by_topic.items()}

    def mean(self, method: str, metric: str, topics: Sequence[str] | None = None) -> float:
        """Mean over topics of the mean over each topic's draws."""
        means = list(self.topic_means(method, metric, topics).values())
        return sum(means) / len(means) if means else 0.0

    def standard_error(self, method: str, metric: str, topics: Sequence[str] | None = None) -> float:
        """The standard error of that mean across topics (the draws of a topic are not independent)."""
        return standard_error(list(self.topic_means(method, metric, topics).values()))

    def ceiling(self, metric: str, topics: Sequence[str] | None = None) -> float:
        """The best any ranking can reach: a topic with R held-back papers
        fills at most min(R, 10) of the ten places (precision@10 and
        recall@10); every topic has fewer than 50."""
        cap = {
            "precision@10": lambda r: min(r, 10) / 10,
            "recall@10": lambda r: min(r, 10) / r,
            "nDCG@10": lambda r: 1.0,
            "recall@50": lambda r: min(r, 50) / r,
        }[metric]
        by_topic = {p.topic: cap(len(p.held_back)) for p in self.people}
        values = [value for topic, value in by_topic.items() if topics is None or topic in topics]
        return sum(values) / len(values) if values else 0.0


# What the method's constants were chosen on: every other eligible topic of
# the first 44 needs in id order; every other eligible topic (the rest of
# those 44, and the needs written Chinese first, added after) is held out.
TUNED_ON = frozenset(f"n{number:02d}" for number in (1, 3, 5, 7, 9, 11, 14, 17, 19, 21, 23, 27, 29, 31, 33, 37, 39))


def tuning_topics(data: EvaluationData) -> list[str]:
    return [topic.id for topic in data.topics if eligible(topic) and topic.id in TUNED_ON]


def held_out_topics(data: EvaluationData) -> list[str]:
    return [topic.id for topic in data.topics if eligible(topic) and topic.id not in TUNED_ON]


def evaluate(
    data: EvaluationData,
    methods: dict[str, Method],
    *,
    draws: int = DRAWS,
    topics: Sequence[str] | None = None,
    people: list[Researcher] | None = None,
) -> Report:
    """`people`: researchers drawn before (their fitted models are reused), else drawn here."""
    people = people if people is not None else researchers(data, draws=draws, topics=topics)
    report = Report(len(data.papers), people)
    # Thousands of small solves and products: BLAS threads only contend
    # (eight times slower on two busy cores).
    with threadpool_limits(limits=1):
        for name, method in methods.items():
            values: dict[str, list[float]] = {metric: [] for metric in METRICS}
            for person in people:
                for metric, value in metrics(ranked(method(data, person), person), person.held_back).items():
                    values[metric].append(value)
            report.scores[name] = values
    return report


def table(report: Report, *, splits: dict[str, Sequence[str] | None]) -> str:
    """The results as Markdown: one table per split of the topics (e.g. those
    tuned on, those held out, all), each metric the mean over its topics ± its
    standard error across them."""
    draws = len(report.people) // max(len(report.topics), 1)
    lines = [
        f"{len(report.people)} simulated researchers ({len(report.topics)} topics, {draws} draws each) "
        f"over {report.papers} real papers."
    ]
    for split, topics in splits.items():
        count = len(report.topics) if topics is None else len([t for t in report.topics if t in topics])
        lines += [
            "",
            f"{split} ({count} topics)",
            "",
            "| method | " + " | ".join(METRICS) + " |",
            "| --- | " + " | ".join("---:" for _ in METRICS) + " |",
        ]
        for name in report.scores:
            spread = report.standard_error
            cells = [f"{report.mean(name, m, topics):.3f} ± {spread(name, m, topics):.3f}" for m in METRICS]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("| *ceiling* | " + " | ".join(f"{report.ceiling(m, topics):.3f}" for m in METRICS) + " |")
    return "\n".join(lines)
