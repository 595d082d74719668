"""The checks each field of a guided reading passes, the same when it is
written (digests/reading_sources.py, then retried once and stripped) and
after the fact (digests/faithfulness.py): every number the field states
occurs in the text it rests on (digests/numbers.py: formats forgiven,
rounding not), and the field is in its language (llm.in_language)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from digests import llm
from digests.numbers import figures, occurs, strip_sentences, unchecked_numbers

# The source values a field's numbers must occur in, by field name.
Sources = Callable[[str], frozenset[Decimal]]


@dataclass(frozen=True)
class FieldFaults:
    numbers: int  # numbers stated, over every field of both languages
    unfound: tuple[str, ...]  # "en/method: 97.3%"
    fields: int  # non-empty fields, both languages
    wrong_language: tuple[str, ...]  # "zh/limitations"

    def __bool__(self) -> bool:
        return bool(self.unfound or self.wrong_language)

    def describe(self) -> str:
        """For the retry's repair message and the reading's error."""
        parts = []
        if self.unfound:
            parts.append(f"numbers the paper text does not state: {', '.join(self.unfound[:10])}")
        if self.wrong_language:
            parts.append(f"fields not in their language: {', '.join(self.wrong_language)}")
        return "; ".join(parts)


def field_faults(content: dict[str, dict[str, str]], sources: Sources) -> FieldFaults:
    stated, unfound, fields, wrong = 0, [], 0, []
    for lang in llm.LANGUAGES:
        for key, text in (content or {}).get(lang, {}).items():
            if not text.strip():
                continue
            fields += 1
            if not llm.in_language(text, lang):
                wrong.append(f"{lang}/{key}")
            values = sources(key)
            for written, value, percent in figures(text):
                stated += 1
                if not occurs(value, percent, values):
                    unfound.append(f"{lang}/{key}: {written}")
    return FieldFaults(stated, tuple(unfound), fields, tuple(wrong))


def without_faults(content: dict[str, dict[str, str]], sources: Sources) -> tuple[dict[str, dict[str, str]], int, int]:
    """The content without the sentences that state a number their field's
    source does not, and, in a field not in its language, without the
    sentences that are not; with how many sentences went for each reason."""
    out = {lang: dict(fields) for lang, fields in content.items()}
    numbers_removed = language_removed = 0
    for lang in llm.LANGUAGES:
        for key, text in out.get(lang, {}).items():
            values = sources(key)
            text, count = strip_sentences(text, lambda sentence, v=values: bool(unchecked_numbers(sentence, v)))
            numbers_removed += count
            if text.strip() and not llm.in_language(text, lang):
                text, count = strip_sentences(text, lambda sentence, lang=lang: not llm.in_language(sentence, lang))
                language_removed += count
            out[lang][key] = text
    return out, numbers_removed, language_removed
