"""What kind of query a search is: a few technical terms (or the keyword
syntax: a quoted phrase, OR, -exclusions, an author's name), or a question
or description in sentences. The hybrid search weighs its keyword side by
the kind: word overlap ranks a few exact terms well and a paraphrase badly
(docs/search.md, "Fusion by the kind of query", has the rule's fit).
"""

from __future__ import annotations

import re

from harvest.query_gloss import FUNCTION_WORDS, has_chinese

MAX_TERMS_WORDS = 6  # English words without a function word; a longer query reads as a description
MAX_TERMS_CHARACTERS = 12  # Chinese characters, spaces aside
_SYNTAX = re.compile(r'"[^"]+"|(?<!\S)OR(?!\S)|(?<!\S)-[^\s"]+')
_QUESTION = re.compile(r"[?？。，,;；、]")
_ENGLISH_FUNCTION_WORDS = (
    "a an the of for in on at to from by with without about into over under how what which why when where who "
    "whose is are was were be been do does did can could should would will may might that this these those "
    "and or but not than then so such as its their our my your we you they it i me us them there here"
)
ENGLISH_FUNCTION_WORDS = frozenset(_ENGLISH_FUNCTION_WORDS.split())
_CHINESE_GRAMMAR = re.compile("|".join(sorted((word for word in FUNCTION_WORDS if len(word) > 1), key=len)[::-1]))
_CHINESE_PARTICLES = re.compile(r"[的了吗呢么让把被对]")


def is_terms_query(text: str) -> bool:
    """A few technical terms, or the keyword syntax; not a sentence."""
    text = " ".join(text.split())
    if _SYNTAX.search(text):
        return True
    if not text or _QUESTION.search(text):
        return False
    if has_chinese(text):
        chinese = "".join(re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff]", text))
        return (
            len(chinese) <= MAX_TERMS_CHARACTERS
            and not _CHINESE_PARTICLES.search(chinese)
            and not _CHINESE_GRAMMAR.search(chinese)
        )
    words = text.split()
    return len(words) <= MAX_TERMS_WORDS and not any(word.lower() in ENGLISH_FUNCTION_WORDS for word in words)
