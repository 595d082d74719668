"""Titles and abstracts with the length and vocabulary of real ones.

The harvest benchmark used to copy the recorded records' text: 200 Kaggle
abstracts (116 words on average, 4,538 distinct words) and 6 OAI ones,
repeated. A full-text index over that text holds a few thousand lexemes
however many papers it covers, while a real library's dictionary keeps
growing (Heaps' law: most new papers bring words no earlier one had), and
that is what the GIN index pays for (bench/SCALE.md, "Full-text indexing
at 1,000,000 papers").

Words are drawn by rank from a Zipf-Mandelbrot law, p(r) ~ (r + 2.7)^-1.3
over 8,000,000 ranks, fitted to the recorded sample: 25,000 drawn words
hold ~4,750 distinct ones (the sample: 4,538) and the first word has
p = 7.9% (the sample's "the": 7.7%). The first ranks are bench/library.py's
vocabulary (function words, CS terms, the sample's words by frequency,
made-up words, 60,000 in all); ranks past it are made-up words spelled
from the rank, so they never repeat by accident. Abstracts have
gauss(170, 60) words in sentences of 19 (recent arXiv cs abstracts average
about 170), titles gauss(10, 3.5). Deterministic for a seed.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from bench import library

RANKS = 8_000_000
EXPONENT = 1.3
OFFSET = 2.7
ABSTRACT_WORDS = (170, 60, 30, 400)  # mean, deviation, least, most
TITLE_WORDS = (10, 3.5, 3, 30)


def _spelled(rank: int) -> str:
    """A made-up word for a rank past the vocabulary: its digits in base 40, one syllable each."""
    syllables = library._SYLLABLES
    parts = []
    while True:
        rank, digit = divmod(rank, len(syllables))
        parts.append(syllables[digit])
        if not rank:
            break
    return "".join(parts) + "x"  # the suffix keeps them apart from the vocabulary's made-up words


class TextDrawer:
    """Draws titles and abstracts, a block of papers at a time (numpy does the sampling)."""

    def __init__(self, *, seed: int, stream: int = 0) -> None:
        self.rng = np.random.default_rng([seed, stream])
        self.words = library.vocabulary(seed)
        self.tail: dict[int, str] = {}

    @cached_property
    def cumulative(self) -> np.ndarray:
        weights = (np.arange(1, RANKS + 1, dtype=np.float64) + OFFSET) ** -EXPONENT
        cumulative = np.cumsum(weights)
        cumulative /= cumulative[-1]
        return cumulative

    def _word(self, rank: int) -> str:
        if rank < len(self.words):
            return self.words[rank]
        word = self.tail.get(rank)
        if word is None:
            word = self.tail[rank] = _spelled(rank)
        return word

    def _lengths(self, count: int, shape: tuple) -> np.ndarray:
        mean, deviation, least, most = shape
        return np.clip(self.rng.normal(mean, deviation, count).astype(int), least, most)

    def _texts(self, count: int, shape: tuple) -> list[list[str]]:
        lengths = self._lengths(count, shape)
        ranks = np.searchsorted(self.cumulative, self.rng.random(int(lengths.sum())))
        words = [self._word(rank) for rank in ranks.tolist()]
        texts, start = [], 0
        for length in lengths.tolist():
            texts.append(words[start : start + length])
            start += length
        return texts

    def block(self, count: int) -> list[tuple[str, str]]:
        """`count` (title, abstract) pairs."""
        titles = [" ".join(words) for words in self._texts(count, TITLE_WORDS)]
        abstracts = [_sentences(words) for words in self._texts(count, ABSTRACT_WORDS)]
        return [(title[:1].upper() + title[1:], abstract) for title, abstract in zip(titles, abstracts, strict=True)]

    def texts(self, papers: int, block: int = 5000):
        """(title, abstract) for `papers` papers, one after another."""
        for start in range(0, papers, block):
            yield from self.block(min(block, papers - start))


def _sentences(words: list[str]) -> str:
    parts = []
    for start in range(0, len(words), 19):
        sentence = " ".join(words[start : start + 19])
        parts.append(sentence[:1].upper() + sentence[1:] + ".")
    return " ".join(parts)
