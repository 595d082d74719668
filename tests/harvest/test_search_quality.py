"""The default search mode keeps its measured quality on the real-paper
collection (docs/search.md): the whole evaluation, hybrid mode, with the
collection's cached passage vectors and the real models for the queries."""

from __future__ import annotations

import pytest

from harvest.hybrid import HYBRID
from harvest.search_evaluation import Collection, evaluate

pytestmark = pytest.mark.django_db

# The targets (nDCG@10, default mode), English's 0.75 less 0.01:
# measured 2026-12-05 English 0.747, Chinese 0.659, paraphrases 0.63 / 0.53
# (docs/search.md). English sits on its target: a change that costs one need's
# ranking fails here, on purpose.
TARGETS = {"en": 0.74, "zh": 0.65}
PARAPHRASE_TARGET = 0.50
CHINESE_SHARE = 0.85  # Chinese at least this share of English


def test_the_default_mode_meets_its_targets(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    report = evaluate(Collection.load(), modes=(HYBRID,))
    for language, target in TARGETS.items():
        assert report.mean("ndcg", HYBRID, language) >= target, language
        assert report.mean("ndcg", HYBRID, language, "paraphrase") >= PARAPHRASE_TARGET, language
    assert report.mean("ndcg", HYBRID, "zh") >= CHINESE_SHARE * report.mean("ndcg", HYBRID, "en")
    # Questions in English, the style keywords alone failed at, stay well found.
    assert report.mean("ndcg", HYBRID, "en", "question") >= 0.75
