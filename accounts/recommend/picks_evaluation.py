"""The cold start from picks measured (docs/recommendations.md): a researcher
who has saved nothing opens a page of PAGE_SIZE papers of "the day" in the two
categories their topic's papers list most, finds k papers of their topic on
it and picks them. The picks train the model as they do live (thumbs up, no
negatives: what was shown and not picked says nothing), which ranks the whole
collection; the topic's other relevant papers must come first.

The collection keeps no days, so the page is k papers of the topic (squarely
on it first) and the rest drawn from the papers listing one of those
categories: a day on which the researcher found k papers to pick. Beside the
live rule, the same picks with the page's unpicked papers as negatives, to
show why they are not."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from accounts.recommend.estimators import EMBEDDING_BACKGROUND
from accounts.recommend.evaluation import METRICS, SEED, Report, Researcher, eligible, ranked
from accounts.recommend.evaluation import metrics as metrics_of
from accounts.recommend.evaluation_data import EvaluationData, Topic
from accounts.recommend.evaluation_methods import CHOSEN, METHODS, Method, neighbours_mean, random_scores
from accounts.recommend.picks import PAGE_SIZE, POPULAR_ARCHIVE, covers

# Ten picks would leave 4 topics with anything held back: too few to say.
PICKS = (1, 2, 3, 5)
FOLLOWED = 2  # categories the simulated researcher follows
UNPICKED_AS_NEGATIVES = "the same, the page's unpicked papers as negatives"
PICK_METHODS: dict[str, Method] = {
    f"{CHOSEN}: picks as thumbs up": METHODS[CHOSEN],
    "embeddings alone (ridge)": METHODS["embeddings alone (ridge)"],
    "nearest neighbours, mean": neighbours_mean,
    "random": random_scores,
}


def followed_categories(data: EvaluationData, topic: Topic) -> list[str]:
    """The categories the topic's relevant papers list most (primary or cross-listed)."""
    counts = Counter(code for index in topic.relevant for code in set(data.papers[index].categories))
    return [code for code, _count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:FOLLOWED]]


def picking_researchers(
    data: EvaluationData, *, picks: int, draws: int, topics: Sequence[str] | None = None
) -> tuple[list[Researcher], list[Researcher]]:
    """Per eligible topic (evaluation.eligible: the main evaluation's; or those of `topics`) with
    more than `picks` relevant papers, `draws` researchers
    who picked `picks` of them from a page: as trained live, and with the
    page's other papers as negatives (the same picks, candidates and background)."""
    live, negative = [], []
    for topic in data.topics:
        if not eligible(topic) or len(topic.relevant) <= picks or (topics is not None and topic.id not in topics):
            continue
        # A topic whose papers list no category (Hugging Face's) is offered
        # computer science as a whole, as a researcher without categories is live.
        codes = set(followed_categories(data, topic)) or {POPULAR_ARCHIVE}
        # Every paper of the topic on the page is among the picks: the rest of
        # the page is not the topic (which makes the unpicked-as-negatives
        # variant look better than it would live, where some would be).
        pool = [
            i
            for i, paper in enumerate(data.papers)
            if any(covers(code, category) for code in codes for category in paper.categories)
            and i not in topic.relevant
        ]
        for draw in range(draws):
            rng = random.Random(f"{SEED}:picks:{topic.id}:{picks}:{draw}")
            squarely = topic.squarely
            partly = sorted(set(topic.relevant) - set(squarely))
            chosen = rng.sample(squarely, min(picks, len(squarely)))
            chosen += rng.sample(partly, picks - len(chosen))
            shown = rng.sample(pool, min(PAGE_SIZE - picks, len(pool)))
            candidates = np.array([index for index in range(len(data.papers)) if index not in chosen])
            background = np.array(rng.sample(list(candidates), min(EMBEDDING_BACKGROUND, len(candidates))))
            held_back = {index: grade for index, grade in topic.relevant.items() if index not in chosen}
            live.append(Researcher(topic.id, draw, [], chosen, [], held_back, candidates, background))
            negative.append(Researcher(topic.id, draw, [], chosen, shown, held_back, candidates, background))
    return live, negative


def evaluate_picks(
    data: EvaluationData, *, draws: int, picks: Sequence[int] = PICKS, topics: Sequence[str] | None = None
) -> dict[int, Report]:
    """One report per number of picks: each method, and the chosen method
    with the unpicked papers as negatives."""
    reports: dict[int, Report] = {}
    with threadpool_limits(limits=1):
        for k in picks:
            live, negative = picking_researchers(data, picks=k, draws=draws, topics=topics)
            report = Report(len(data.papers), live)
            variants = [(name, method, live) for name, method in PICK_METHODS.items()]
            variants.insert(1, (UNPICKED_AS_NEGATIVES, METHODS[CHOSEN], negative))
            for name, method, people in variants:
                values: dict[str, list[float]] = {metric: [] for metric in METRICS}
                for person in people:
                    for metric, value in metrics_of(ranked(method(data, person), person), person.held_back).items():
                        values[metric].append(value)
                report.scores[name] = values
            reports[k] = report
    return reports


def picks_table(reports: dict[int, Report]) -> str:
    lines = [
        f"Cold start from picks: k papers of the topic picked from a page of {PAGE_SIZE} papers in its two most listed "
        "categories, nothing saved; the topic's other relevant papers to find",
        "",
        "| picks | method | topics | " + " | ".join(METRICS) + " |",
        "| ---: | --- | ---: | " + " | ".join("---:" for _ in METRICS) + " |",
    ]
    for k, report in reports.items():
        for name in report.scores:
            values = " | ".join(f"{report.mean(name, m):.3f}" for m in METRICS)
            lines.append(f"| {k} | {name} | {len(report.topics)} | {values} |")
    return "\n".join(lines)
