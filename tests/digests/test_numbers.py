"""The number check of a reading's results (digests/numbers.py): a pure
function over the reading's text and the source text it was written from."""

from __future__ import annotations

from decimal import Decimal

from digests.numbers import figures, source_values, strip_unchecked, unchecked_numbers

SOURCE = (
    "On 1,000 held-out questions the model reaches 87.3% accuracy (0.912 F1), up from 74.50 for the baseline; "
    "training used 12.5 GPU-hours on 8 A100s with learning rate $10^{-4}$. See Section 4.2 and Table 3."
)


def test_formatting_is_forgiven_percent_thousands_trailing_zero_and_fraction():
    source = source_values(SOURCE)
    assert unchecked_numbers("It answers 1000 questions at 87.3 accuracy.", source) == []
    assert unchecked_numbers("Baseline 74.5; 12.5 GPU-hours; 91.2% F1; 1,000 items.", source) == []
    assert unchecked_numbers("准确率达到87.3%，基线为74.5。", source) == []


def test_a_number_the_source_does_not_state_is_reported_as_written():
    source = source_values(SOURCE)
    assert unchecked_numbers("Accuracy rises to 88.1% on 2,000 questions.", source) == ["88.1%", "2,000"]
    # Rounding is not forgiven: 87% is a figure the paper does not give.
    assert unchecked_numbers("It reaches 87% accuracy.", source) == ["87%"]
    # A fraction written as a percentage matches, not the other way round.
    assert unchecked_numbers("Accuracy 0.873.", source) == ["0.873"]


def test_names_versions_section_citations_and_arxiv_ids_are_not_figures():
    assert figures("GPT4 and F1 in v2, see §5.3, Section 4.2, Table 3, Fig. 2, 图3 and arXiv 2501.11120v1") == []
    # A number hyphenated to a name is the name's: the model, not a figure of the paper.
    assert [w for w, _v, _p in figures("Llama-3.1 and GPT-4 with 70 layers, top-5 at -3.2")] == ["70", "3.2"]
    ((written, value, percent),) = figures("a gain of 12.50 %")
    assert (written, value, percent) == ("12.50 %", Decimal("12.5"), True)


def test_strip_removes_only_sentences_with_unchecked_numbers_and_counts_them():
    source = source_values(SOURCE)
    text = "Accuracy is 87.3%. It beats all baselines by 9.9 points. Training took 12.5 GPU-hours."
    kept, removed = strip_unchecked(text, source)
    assert (kept, removed) == ("Accuracy is 87.3%. Training took 12.5 GPU-hours.", 1)
    chinese, removed = strip_unchecked("准确率为87.3%。比基线高9.9个点。训练用了12.5 GPU小时。", source)
    assert (chinese, removed) == ("准确率为87.3%。训练用了12.5 GPU小时。", 1)
    assert strip_unchecked("No figures here.", source) == ("No figures here.", 0)


def test_numbered_and_author_year_citations_vouch_for_no_figure():
    assert figures("as in [21], [3, 5\u20137], [12-14]; Smith et al., 2020 and Lee et al. (2019a)") == []
    source = source_values("Prior work [21] reports gains (Lee et al., 2019). We reach 87.3%.")
    assert unchecked_numbers("It improves accuracy by 21% over 2019's best, reaching 87.3%.", source) == ["21%", "2019"]
