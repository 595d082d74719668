"""The query-kind rule the hybrid search weighs its keyword side by
(docs/search.md, "Fusion by the kind of query")."""

from __future__ import annotations

import pytest

from harvest.query_kind import is_terms_query
from harvest.search_evaluation import STYLES, Collection


@pytest.mark.parametrize(
    "query",
    [
        "mutation testing",
        "conformal prediction LLM",
        '"speculative decoding"',
        "diffusion OR flow matching",
        "graph neural network -survey",
        "Yoshua Bengio",
        "差分隐私",
        "transformer 剪枝",
        "大模型 多模态 具身智能",
    ],
)
def test_a_few_terms_or_the_keyword_syntax_read_as_terms(query):
    assert is_terms_query(query)


@pytest.mark.parametrize(
    "query",
    [
        "How can we test software whose behaviour was learned from data?",
        "ways to make a chat model answer faster without buying more hardware",
        "papers on the spread of disease through a population",
        "如何对基于机器学习模型的软件系统进行测试？",
        "让大模型在回答前先查资料的方法",
    ],
)
def test_a_question_or_a_description_does_not(query):
    assert not is_terms_query(query)


def test_the_rule_agrees_with_the_collections_styles():
    """Fitted on the collection: its keyword queries read as terms, its
    questions and paraphrases never do (at most 8 of the 128 keyword queries,
    long or grammatical, may read as a description; 2 do on the 64 needs)."""
    needs = Collection.load().needs
    agree = {style: 0 for style in STYLES}
    for need in needs:
        for language in ("en", "zh"):
            for style in STYLES:
                agree[style] += is_terms_query(need.queries[language][style]) == (style == "keywords")
    assert agree["question"] == agree["paraphrase"] == 2 * len(needs)
    assert agree["keywords"] >= 2 * len(needs) - 8
