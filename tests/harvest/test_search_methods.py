"""The evaluation's spread: means with their standard error across needs,
the three styles of a need averaged before the spread is taken."""

from __future__ import annotations

import numpy as np
import pytest

from harvest.search_evaluation import Report
from harvest.search_methods import rrf, z


def test_the_standard_error_is_across_needs_with_styles_averaged_first():
    report = Report()
    for style, scores in (("keywords", [1.0, 0.0]), ("question", [1.0, 0.0]), ("paraphrase", [0.4, 0.2])):
        report.ndcg[("m", "en", style)] = scores
        report.recall[("m", "en", style)] = scores
    assert report.scores("ndcg", "m", "en") == pytest.approx([0.8, 0.0667], abs=1e-3)
    assert report.standard_error("ndcg", "m", "en") == pytest.approx(0.3667, abs=1e-3)
    assert report.standard_error("ndcg", "m", "en", "paraphrase") == pytest.approx(0.1)
    assert "| m | 1.00 ± 0.00" not in report.spread_table()
    assert "0.43 ± 0.37" in report.spread_table()


def test_the_fusions_read_as_documented():
    scores = np.array([0.9, 0.1, 0.5])
    assert z(scores).mean() == pytest.approx(0.0) and z(scores).std() == pytest.approx(1.0)
    fused = rrf(scores, [1], weight=0.5)
    assert fused[0] == pytest.approx(1 / 61) and fused[1] == pytest.approx(1 / 63 + 0.5 / 61)
