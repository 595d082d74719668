"""What a paper looks like to the model: hashed word unigrams and bigrams of
its title and abstract, its authors and its categories, in one sparse space.

Hashing needs no vocabulary, so a user's model is a sparse weight vector that
stays valid as the library grows, and one announcement day's papers are
vectorised once for every user. Nothing is downloaded: the stop words are
scikit-learn's own."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, HashingVectorizer
from sklearn.utils import murmurhash3_32

N_FEATURES = 2**18
# How much each part weighs in a paper's vector (each part is unit length
# before weighting); chosen on the offline evaluation (docs/recommendations.md).
TEXT_WEIGHT = 1.0
AUTHOR_WEIGHT = 0.35
CATEGORY_WEIGHT = 0.6

_WORD = re.compile(r"(?u)\b[^\W\d_][\w\-]+\b")
_TEX = re.compile(r"\$[^$]*\$|\\[a-zA-Z]+")
# A word as written, with a trailing hyphen when the text breaks it there.
_WRITTEN = re.compile(r"(?u)[^\W\d_][\w\-]*")


@dataclass(frozen=True)
class PaperText:
    """The parts of a paper the model reads (a Paper row or an evaluation record)."""

    id: int | str
    title: str
    abstract: str = ""
    authors: Sequence[str] = ()
    categories: Sequence[str] = ()
    extra: dict = field(default_factory=dict, compare=False)


def words(text: str) -> list[str]:
    """Lower-cased words without TeX and stop words."""
    text = _TEX.sub(" ", text.lower())
    return [word for word in _WORD.findall(text) if word not in ENGLISH_STOP_WORDS and len(word) > 1]


def text_terms(paper: PaperText) -> list[str]:
    """Unigrams and bigrams of the title (counted twice: it says what the paper is) and the abstract."""
    terms: list[str] = []
    for part, times in ((paper.title, 2), (paper.abstract, 1)):
        tokens = words(part)
        grams = tokens + [f"{a} {b}" for a, b in itertools.pairwise(tokens)]
        terms.extend(grams * times)
    return terms


def author_key(name: str) -> str:
    """One spelling per person as arXiv lists them: surname and first initial."""
    parts = [p for p in re.split(r"[\s.]+", name.lower().replace("\\", "")) if p]
    if not parts:
        return ""
    return f"{parts[-1]} {parts[0][0]}" if len(parts) > 1 else parts[0]


def meta_terms(paper: PaperText) -> tuple[list[str], list[str]]:
    authors = [f"author:{key}" for key in map(author_key, paper.authors[:30]) if key]
    categories = [f"category:{code}" for code in paper.categories]
    if paper.categories:
        categories.append(f"primary:{paper.categories[0]}")
    return authors, categories


def _hasher() -> HashingVectorizer:
    return HashingVectorizer(
        n_features=N_FEATURES, analyzer=lambda terms: terms, alternate_sign=False, norm=None, dtype=np.float32
    )


def _unit_rows(matrix: sparse.csr_matrix, *, sublinear: bool) -> sparse.csr_matrix:
    matrix = matrix.tocsr()
    if sublinear:
        matrix.data = np.log1p(matrix.data)
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ matrix, dtype=np.float32)


def vectorize(papers: Iterable[PaperText]) -> sparse.csr_matrix:
    """One unit-length row per paper."""
    papers = list(papers)
    hasher = _hasher()
    if not papers:
        return sparse.csr_matrix((0, N_FEATURES), dtype=np.float32)
    metas = [meta_terms(paper) for paper in papers]
    text = _unit_rows(hasher.transform([text_terms(p) for p in papers]), sublinear=True)
    authors = _unit_rows(hasher.transform([m[0] for m in metas]), sublinear=False)
    categories = _unit_rows(hasher.transform([m[1] for m in metas]), sublinear=False)
    combined = TEXT_WEIGHT * text + AUTHOR_WEIGHT * authors + CATEGORY_WEIGHT * categories
    return _unit_rows(combined, sublinear=False)


def term_index(term: str) -> int:
    """The column a term lands in (as scikit-learn's hashing computes it)."""
    value = murmurhash3_32(term, seed=0, positive=False)
    if value == -(2**31):
        return (2**31 - 1 - (N_FEATURES - 1)) % N_FEATURES
    return abs(value) % N_FEATURES


def written_forms(paper: PaperText) -> dict[str, str]:
    """Each lower-cased word of the title and abstract as the paper first
    writes it ("LLMs" for "llms"); a word it writes only before a hyphen (the
    "uni-" of "uni- and multimodal") maps to "": it is no word to show."""
    forms: dict[str, str] = {}
    for found in _WRITTEN.finditer(_TEX.sub(" ", f"{paper.title}\n{paper.abstract}")):
        word = found.group(0)
        if word.endswith("-"):
            forms.setdefault(word.rstrip("-").lower(), "")
        elif not forms.get(word.lower()):
            forms[word.lower()] = word
    return forms


def as_written(term: str, forms: dict[str, str]) -> str:
    """A text term in the paper's own spelling, "" if any of its words is only a hyphenated prefix."""
    shown = [forms.get(word, word) for word in term.split(" ")]
    return "" if "" in shown else " ".join(shown)


def readable_terms(paper: PaperText) -> dict[int, str]:
    """Column -> the term as a reader would recognise it (a word or a pair of
    words as the paper writes them, a category code, an author's name as the
    paper gives it); "" for a column no word explains."""
    found: dict[int, str] = {}
    forms = written_forms(paper)
    for term in text_terms(paper):
        found.setdefault(term_index(term), as_written(term, forms))
    for code in paper.categories:
        found.setdefault(term_index(f"category:{code}"), code)
    if paper.categories:
        found.setdefault(term_index(f"primary:{paper.categories[0]}"), paper.categories[0])
    for name in paper.authors[:30]:
        key = author_key(name)
        if key:
            found.setdefault(term_index(f"author:{key}"), name)
    return found
