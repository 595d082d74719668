"""How well topic follows match, on the real-paper collection of the search
evaluation (tests/fixtures/search_eval; docs/search.md, "Topic follows"):
each need becomes topic follows, one a query of the collection (a
description, English or Chinese, in each of the three styles) and one of
three example papers (the first three judged squarely relevant); the papers
a follow would match in the collection are compared with the judgements:
precision, recall and F1, averaged over the needs (F1 with its standard
error across them), at several thresholds."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from accounts.follows.definition import FollowDefinition
from accounts.follows.topics import DEFAULT_THRESHOLD, Topic
from harvest.embeddings.encoders import get_encoder
from harvest.embeddings.index import vectors_of
from harvest.embeddings.reference import reference_statistics
from harvest.search_evaluation import LANGUAGES, STYLES, Collection, collection_in_library, passage_vectors

THRESHOLDS = tuple(sorted({2.0, 2.5, 3.0, 3.5, 4.0, 4.5, DEFAULT_THRESHOLD}))
EXAMPLES = 3


@dataclass
class TopicReport:
    # (kind, threshold) -> per-need (precision, recall, matched)
    rows: dict[tuple[str, float], list[tuple[float, float, int]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, kind: str, threshold: float, matched: set[str], relevant: set[str]) -> None:
        hits = len(matched & relevant)
        precision = hits / len(matched) if matched else 0.0
        recall = hits / len(relevant) if relevant else 0.0
        self.rows[(kind, threshold)].append((precision, recall, len(matched)))

    def f1s(self, kind: str, threshold: float) -> list[float]:
        """Each need's F1 (0 where nothing relevant was matched)."""
        return [2 * p * r / (p + r) if p + r else 0.0 for p, r, _ in self.rows[(kind, threshold)]]

    def means(self, kind: str, threshold: float) -> tuple[float, float, float, float]:
        rows = self.rows[(kind, threshold)]
        precision = sum(row[0] for row in rows) / len(rows)
        recall = sum(row[1] for row in rows) / len(rows)
        return precision, recall, _mean(self.f1s(kind, threshold)), sum(row[2] for row in rows) / len(rows)

    def best(self, kind: str) -> tuple[float, float, float]:
        """The threshold of the best mean F1, and its gain over the default
        ± the standard error of the per-need differences (the same needs)."""
        best = max(THRESHOLDS, key=lambda threshold: _mean(self.f1s(kind, threshold)))
        gains = np.subtract(self.f1s(kind, best), self.f1s(kind, DEFAULT_THRESHOLD))
        return best, float(gains.mean()), _standard_error(gains)

    def table(self) -> str:
        lines = [
            "| topic given as | threshold | precision | recall | F1 ± SE | papers matched a need | needs |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        kinds = list(dict.fromkeys(key[0] for key in self.rows))
        for kind in kinds:
            for threshold in THRESHOLDS:
                precision, recall, f1, matched = self.means(kind, threshold)
                spread = _standard_error(self.f1s(kind, threshold))
                mark = "**" if threshold == DEFAULT_THRESHOLD else ""
                lines.append(
                    f"| {kind} | {mark}{threshold}{mark} | {precision:.2f} | {recall:.2f} | {f1:.2f} ± {spread:.2f} "
                    f"| {matched:.1f} | {len(self.rows[(kind, threshold)])} |"
                )
        lines += ["", f"| topic given as | best threshold | F1 gain over {DEFAULT_THRESHOLD} ± SE |"]
        lines.append("| --- | ---: | ---: |")
        for kind in kinds:
            best, gain, spread = self.best(kind)
            lines.append(f"| {kind} | {best} | {gain:+.3f} ± {spread:.3f} |")
        return "\n".join(lines)


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else 0.0


def _standard_error(values) -> float:
    return float(np.std(values, ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def evaluate_topics(
    collection: Collection | None = None, *, progress: Callable[[str], None] | None = None
) -> TopicReport:
    collection = collection or Collection.load()
    encoder = get_encoder()
    report = TopicReport()
    with collection_in_library(collection, passage_vectors(collection, encoder, progress=progress), encoder) as ids:
        arxiv_of = {pk: arxiv_id for arxiv_id, pk in ids.items()}
        paper_ids, vectors = vectors_of(list(ids.values()), model=encoder.name, dimension=encoder.dimension)
        reference = reference_statistics(model=encoder.name, dimension=encoder.dimension)

        def judge(kind: str, value: dict, relevant: set[str]) -> None:
            topic = Topic.of(FollowDefinition.parse("topic", value).compiled, reference)
            scores = topic.scores(vectors)
            for threshold in THRESHOLDS:
                matched = {arxiv_of[paper_ids[row]] for row in np.flatnonzero(scores >= threshold)}
                report.add(kind, threshold, matched - set(value.get("examples", ())), relevant)

        for need in collection.needs:
            relevant = {arxiv_id for arxiv_id in need.relevant if arxiv_id in ids}
            for language in LANGUAGES:
                for style in STYLES:
                    judge(f"description, {language}, {style}", {"description": need.queries[language][style]}, relevant)
            examples = _examples(need.relevant)
            if examples and relevant - set(examples):
                judge(f"{EXAMPLES} example papers", {"examples": examples}, relevant - set(examples))
            if progress is not None:
                progress(f"need {need.id} done")
    return report


def _examples(relevant: dict[str, int]) -> Sequence[str]:
    strong = sorted(arxiv_id for arxiv_id, grade in relevant.items() if grade == 2)
    return strong[:EXAMPLES] if len(strong) > EXAMPLES else ()
