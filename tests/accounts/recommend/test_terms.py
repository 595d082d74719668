"""The terms that explain a recommendation read as the paper writes them:
"LLMs", not the model's lower-cased "llms"; a hyphenated prefix ("uni-" of
"uni- and multimodal") is no word and is never shown; category codes and
authors' names are kept as they are."""

from __future__ import annotations

from accounts.recommend.features import PaperText, readable_terms, term_index, text_terms


def test_terms_are_shown_as_the_paper_writes_them_and_prefixes_are_dropped():
    paper = PaperText(
        id=1,
        title="LLMs for Uni- and Multimodal Tasks",
        abstract="We evaluate LLMs on 12 tasks with BERT baselines.",
        authors=["Ada Lovelace"],
        categories=["cs.CL"],
    )
    shown = readable_terms(paper)
    assert shown[term_index("llms")] == "LLMs"
    assert shown[term_index("multimodal tasks")] == "Multimodal Tasks"
    assert shown[term_index("llms uni")] == ""
    assert shown[term_index("bert")] == "BERT"
    assert shown[term_index("uni")] == ""  # only ever the first half of "Uni- and Multimodal"
    assert "uni" in text_terms(paper)  # the model still reads it; only its label is empty
    assert shown[term_index("category:cs.CL")] == "cs.CL"
    assert shown[term_index("author:lovelace a")] == "Ada Lovelace"
