"""The library's keyword language read as PostgreSQL's websearch_to_tsquery
reads it, for the SQLite search (harvest.filters.full_text_search), and its
translation into an SQLite FTS5 query.

PostgreSQL parses `q` itself; SQLite has no such parser, so this module does
the same reading: words are all required, `"a phrase"` must occur as written,
`OR` between terms offers alternatives (AND binds tighter: `a b OR c` is
`(a AND b) OR c`), `-word` and `-"a phrase"` leave papers out, and English
stop words outside phrases are dropped as PostgreSQL's english configuration
drops them (`attention is all you need` looks for attention and need). The
matching itself (whole words, case folded, Porter stems: "poses" finds "pose"
but "pose" never "proposed") is the FTS5 table's tokenizer (migration 0011).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A word as FTS5's unicode61 tokenizer sees one: letters and digits (the
# underscore is a separator there, so it is one here).
WORD = re.compile(r"[^\W_]+")
# PostgreSQL's english.stop (the Snowball list), which websearch_to_tsquery drops.
_STOP_WORDS_TEXT = (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself they them their theirs themselves what which who whom this that these those am is "
    "are was were be been being have has had having do does did doing a an the and but if or because as until "
    "while of at by for with about against between into through during before after above below to from up down "
    "in out on off over under again further then once here there when where why how all any both each few more "
    "most other some such no nor not only own same so than too very s t can will just don should now"
)
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())
# One word of a person's name: letters, with inner dots, apostrophes or
# hyphens (`J.`, `O'Brien`, `Jean-Pierre`); no digits.
_NAME_WORD = re.compile(r"^[^\W\d_]+(?:[.'\u2019\-][^\W\d_]+)*\.?$")
_OR = "or"


@dataclass(frozen=True)
class Term:
    """One word, or the words of a phrase in their order."""

    words: tuple[str, ...]

    def fts5(self) -> str:
        # Every word is letters and digits only, so a double-quoted FTS5
        # string needs no escaping; several words are a phrase.
        return '"' + " ".join(self.words) + '"'


@dataclass(frozen=True)
class Alternative:
    """Papers with every required term and none of the excluded ones."""

    required: tuple[Term, ...]
    excluded: tuple[Term, ...]


@dataclass(frozen=True)
class ParsedQuery:
    alternatives: tuple[Alternative, ...]

    @property
    def matches_nothing(self) -> bool:
        """A query of stop words and punctuation only: PostgreSQL finds nothing for it either."""
        return not self.alternatives

    def fts5_required(self) -> str:
        """The FTS5 query of the alternatives that require a word ("" if none does)."""
        parts = []
        for alternative in self.alternatives:
            if not alternative.required:
                continue
            text = " AND ".join(term.fts5() for term in alternative.required)
            if alternative.excluded:
                text = f"({text}) NOT ({_any_of(alternative.excluded)})"
            parts.append(f"({text})")
        return " OR ".join(parts)

    def fts5_exclusions(self) -> list[str]:
        """One FTS5 query per alternative made of exclusions only (`-quantum`):
        such an alternative matches every paper that query does not. FTS5's
        NOT needs something on its left, so the caller negates these."""
        return [_any_of(a.excluded) for a in self.alternatives if not a.required]


def _any_of(terms: tuple[Term, ...]) -> str:
    return " OR ".join(term.fts5() for term in terms)


def parse(text: str, *, max_words: int) -> ParsedQuery:
    """`text` as websearch_to_tsquery reads it, keeping at most `max_words` words."""
    alternatives: list[Alternative] = []
    required: list[Term] = []
    excluded: list[Term] = []
    negate = False
    budget = max_words
    for token, quoted in _tokens(text):
        if not quoted and token.startswith("-"):
            # `-word`, `-"a phrase"`, and as in PostgreSQL a lone `-` before the next term.
            negate, token = True, token.lstrip("-")
            if not token:
                continue
        if not quoted and token.lower() == _OR and not negate:
            if required or excluded:
                alternatives.append(Alternative(tuple(required), tuple(excluded)))
                required, excluded = [], []
            continue
        words = tuple(word.lower() for word in WORD.findall(token))
        if not quoted and len(words) == 1 and words[0] in STOP_WORDS:
            words = ()
        words = words[:budget]
        if words:
            budget -= len(words)
            (excluded if negate else required).append(Term(words))
        negate = False
    if required or excluded:
        alternatives.append(Alternative(tuple(required), tuple(excluded)))
    return ParsedQuery(tuple(alternatives))


def _tokens(text: str):
    """(token, quoted) pairs: a double-quoted phrase (closed by the end of the
    text if need be), or a run of characters up to a space or a quote."""
    position, length = 0, len(text)
    while position < length:
        char = text[position]
        if char.isspace():
            position += 1
        elif char == '"':
            end = text.find('"', position + 1)
            end = length if end < 0 else end
            yield text[position + 1 : end], True
            position = end + 1
        else:
            end = position
            while end < length and not text[end].isspace() and text[end] != '"':
                end += 1
            yield text[position:end], False  # `-` before a quote negates the phrase
            position = end


def looks_like_a_name(text: str) -> bool:
    """Two to four words that could be a person's name, with no search
    operators (quotes, `-`, `OR`) and no digits."""
    words = text.split()
    if not 2 <= len(words) <= 4:
        return False
    return all(_NAME_WORD.match(word) and word.lower() != _OR for word in words)
