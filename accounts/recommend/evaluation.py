"""The offline evaluation (docs/recommendations.md): simulated researchers on
real recorded papers, scored by precision@10, recall@50 and nDCG@10 for the
chosen method and the baselines.

A simulated researcher has one topic, a primary category with at least
MIN_TOPIC_PAPERS papers; they save SAVES papers of it drawn at random, and
every other paper of that primary category is relevant. The method trains on
the saves against a background sample of the other papers (as the live
training does with recent papers) and ranks every paper not saved."""

from __future__ import annotations

import math
import random
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from accounts.recommend.baselines import BASELINES
from accounts.recommend.features import PaperText, vectorize
from accounts.recommend.model import fit

MIN_TOPIC_PAPERS = 12
SAVES = 5
SEEDS = 5
BACKGROUND = 200
METRICS = ("precision@10", "recall@50", "nDCG@10")
CHOSEN = "linear model (chosen)"

Ranker = Callable[..., list[int]]


@dataclass
class Researcher:
    topic: str
    seed: int
    saved: list[int]  # indices into the corpus
    relevant: set[int]


def researchers(corpus: Sequence[PaperText], *, saves: int = SAVES, seeds: int = SEEDS) -> list[Researcher]:
    by_topic: dict[str, list[int]] = defaultdict(list)
    for index, paper in enumerate(corpus):
        by_topic[paper.categories[0]].append(index)
    found = []
    for topic in sorted(by_topic):
        members = by_topic[topic]
        if len(members) < MIN_TOPIC_PAPERS:
            continue
        for seed in range(seeds):
            saved = random.Random(f"{topic}:{seed}").sample(members, saves)
            found.append(Researcher(topic, seed, saved, set(members) - set(saved)))
    return found


def precision_at(ranked: Sequence[int], relevant: set[int], k: int) -> float:
    return sum(1 for i in ranked[:k] if i in relevant) / k


def recall_at(ranked: Sequence[int], relevant: set[int], k: int) -> float:
    return sum(1 for i in ranked[:k] if i in relevant) / len(relevant) if relevant else 0.0


def ndcg_at(ranked: Sequence[int], relevant: set[int], k: int) -> float:
    gain = sum(1 / math.log2(rank + 2) for rank, i in enumerate(ranked[:k]) if i in relevant)
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(k, len(relevant))))
    return gain / ideal if ideal else 0.0


def metrics(ranked: Sequence[int], relevant: set[int]) -> dict[str, float]:
    return {
        "precision@10": precision_at(ranked, relevant, 10),
        "recall@50": recall_at(ranked, relevant, 50),
        "nDCG@10": ndcg_at(ranked, relevant, 10),
    }


def model_ranking(vectors) -> Ranker:
    """The chosen method over precomputed corpus vectors (rows of `vectors`)."""

    def rank(saved_idx: list[int], candidate_idx: list[int], *, seed: int) -> list[int]:
        background = random.Random(seed).sample(candidate_idx, min(BACKGROUND, len(candidate_idx)))
        positives = vectors[saved_idx]
        model = fit(positives, np.ones(len(saved_idx)), vectors[:0], vectors[background])
        scores = model.score(vectors[candidate_idx])
        return list(np.argsort(-scores, kind="stable"))

    return rank


def evaluate(corpus: Sequence[PaperText], *, saves: int = SAVES, seeds: int = SEEDS) -> dict:
    """Mean of each metric per method over every simulated researcher."""
    vectors = vectorize(corpus)
    chosen = model_ranking(vectors)
    people = researchers(corpus, saves=saves, seeds=seeds)
    totals: dict[str, dict[str, float]] = {name: dict.fromkeys(METRICS, 0.0) for name in [CHOSEN, *BASELINES]}
    for person in people:
        saved = set(person.saved)
        candidate_idx = [i for i in range(len(corpus)) if i not in saved]
        candidates = [corpus[i] for i in candidate_idx]
        saved_papers = [corpus[i] for i in person.saved]
        relevant = {position for position, i in enumerate(candidate_idx) if i in person.relevant}
        seed = zlib.crc32(f"{person.topic}:{person.seed}".encode())
        rankings = {CHOSEN: chosen(person.saved, candidate_idx, seed=person.seed)}
        for name, baseline in BASELINES.items():
            rankings[name] = baseline(saved_papers, candidates, seed=seed)
        for name, ranked in rankings.items():
            for metric, value in metrics(ranked, relevant).items():
                totals[name][metric] += value
    count = max(len(people), 1)
    return {
        "papers": len(corpus),
        "researchers": len(people),
        "topics": len({p.topic for p in people}),
        "saves": saves,
        "results": {name: {m: v / count for m, v in values.items()} for name, values in totals.items()},
    }


def table(report: dict) -> str:
    """The results as a Markdown table."""
    lines = [
        f"{report['researchers']} simulated researchers ({report['topics']} topics, {report['saves']} saves each) "
        f"over {report['papers']} real papers",
        "",
        "| method | " + " | ".join(METRICS) + " |",
        "| --- | " + " | ".join("---:" for _ in METRICS) + " |",
    ]
    for name, values in report["results"].items():
        lines.append(f"| {name} | " + " | ".join(f"{values[m]:.3f}" for m in METRICS) + " |")
    return "\n".join(lines)
