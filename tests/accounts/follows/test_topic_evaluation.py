"""The topic follows' evaluation report (accounts/follows/topic_evaluation.py)
on small cases: per-need F1 and its standard error, and the best threshold's
gain over the default paired on the same needs."""

from __future__ import annotations

import pytest

from accounts.follows.topic_evaluation import THRESHOLDS, TopicReport
from accounts.follows.topics import DEFAULT_THRESHOLD


def report_of(matched_by_threshold: dict[float, list[set[str]]], relevant: list[set[str]]) -> TopicReport:
    report = TopicReport()
    for threshold in THRESHOLDS:
        for matched, wanted in zip(matched_by_threshold.get(threshold, [set()] * len(relevant)), relevant, strict=True):
            report.add("kind", threshold, matched, wanted)
    return report


def test_f1_is_per_need_and_its_spread_is_across_needs():
    relevant = [{"a", "b"}, {"c", "d"}]
    report = report_of({DEFAULT_THRESHOLD: [{"a", "b"}, {"c", "x", "y", "z"}]}, relevant)
    # Need 1: F1 1; need 2: precision 1/4, recall 1/2, F1 1/3.
    assert report.f1s("kind", DEFAULT_THRESHOLD) == pytest.approx([1.0, 1 / 3])
    assert report.means("kind", DEFAULT_THRESHOLD)[2] == pytest.approx(2 / 3)
    table = report.table()
    assert f"| kind | **{DEFAULT_THRESHOLD}** | 0.62 | 0.75 | 0.67 ± 0.33 | 3.0 | 2 |" in table


def test_the_best_threshold_is_named_with_its_paired_gain_over_the_default():
    relevant = [{"a", "b"}, {"c", "d"}, {"e", "f"}]
    stricter = max(THRESHOLDS)
    report = report_of(
        {
            DEFAULT_THRESHOLD: [{"a", "x"}, {"c", "x"}, {"e", "f"}],
            stricter: [{"a", "b"}, {"c", "d"}, {"e", "f"}],
        },
        relevant,
    )
    best, gain, spread = report.best("kind")
    assert best == stricter
    # Gains 0.5, 0.5, 0 on the same three needs.
    assert gain == pytest.approx(1 / 3) and spread == pytest.approx(1 / 6)
    assert f"| kind | {stricter} | +0.333 ± 0.167 |" in report.table()
