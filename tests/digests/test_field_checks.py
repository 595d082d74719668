"""The per-field checks of a reading (digests/field_checks.py), the same at
writing and in check_readings: each field's numbers against its source
("changes" may also state the previous version's), each field in its
language; the sentences that fail removed and counted by reason."""

from __future__ import annotations

from digests.field_checks import field_faults, without_faults
from digests.numbers import source_values

OWN = source_values("Accuracy 87.3% on 1,000 questions; baseline 74.5.")
BOTH = OWN | source_values("The first version reported 81.0%.")


def sources(key: str) -> frozenset:
    return BOTH if key == "changes" else OWN


def reading(**fields: str) -> dict:
    en = {"takeaway": "It answers 1000 questions.", "method": "A retriever.", "changes": ""}
    zh = {"takeaway": "它回答了1000个问题。", "method": "使用 BERT 检索器。", "changes": ""}
    for key, value in fields.items():
        lang, name = key.split("_", 1)
        (en if lang == "en" else zh)[name] = value
    return {"zh": zh, "en": en}


def test_every_field_is_checked_on_its_own_not_only_results():
    faults = field_faults(
        reading(en_method="A retriever at 4242.5 queries a second.", zh_method="It retrieves."), sources
    )

    assert faults.unfound == ("en/method: 4242.5",)
    assert faults.wrong_language == ("zh/method",)  # one English field among Chinese ones
    assert (faults.numbers, faults.fields) == (3, 4) and bool(faults)
    assert "4242.5" in faults.describe() and "zh/method" in faults.describe()


def test_changes_may_state_the_previous_versions_numbers_and_no_other_field_may():
    content = reading(en_changes="Accuracy rose from 81.0% to 87.3%.", en_method="It improves on 81.0%.")

    assert field_faults(content, sources).unfound == ("en/method: 81.0%",)


def test_failing_sentences_are_removed_and_counted_by_reason():
    content = reading(
        en_method="A retriever. It parses 4242.5 sentences per second.",
        zh_method="检索器使用 BERT。The paper does not state its limitations.",
    )

    kept, numbers, language = without_faults(content, sources)

    assert kept["en"]["method"] == "A retriever."
    assert kept["zh"]["method"] == "检索器使用 BERT。"  # a model name in a Chinese sentence is welcome
    assert (numbers, language) == (1, 1)
    assert kept["zh"]["takeaway"] == content["zh"]["takeaway"]
    assert not field_faults(kept, sources)
