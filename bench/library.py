"""The shape of the synthetic arXiv-like library (`make bench-data`), as pure
functions of a seed: no database here, bench/data.py writes what this draws.

Every distribution is a small table below, chosen to follow arXiv's public
statistics for computer science where they are known (approximately):

- dates: twenty years of papers, growing exponentially so that the last days
  bring `daily` (default 1,100) papers a day; the rate is solved for the
  requested total (bench.library.Timeline), so 100,000 papers cover mostly the
  last months and 3,000,000 the whole twenty years. The site was bootstrapped
  `BOOTSTRAP_DAYS` ago from a bulk import (every older paper shares that
  inclusion time, spread over the import's three hours); since then papers are
  included hours after submission; a few old papers are back-filled later.
- categories: a primary drawn from `PRIMARY` (85 % cs.*, the rest other
  archives cross-listed to cs, because the harvest set is `cs`), then zero to
  four cross-lists drawn from the primary's neighbours (`NEIGHBOURS`).
- versions: `VERSIONS` (most papers one or two), later versions weeks to months
  after the previous; a version not yet submitted by `now` does not exist.
- authors: a pool of 2.5 names per paper drawn with a Zipf-Mandelbrot law
  (p(k) ~ 1/(k + pool/600)): the busiest authors have a few hundred papers,
  about half of the authors drawn have one (Lotka's law); papers have 1 to 300
  authors (`AUTHOR_COUNTS`, median 4); names no paper drew are not stored.
- text: words drawn from a Zipf vocabulary (p(r) ~ 1/r over `VOCABULARY_SIZE`
  words: English function words, common CS terms, the words of the recorded
  Kaggle sample, then made-up words), titles of ~10 and abstracts of ~165
  words, so a word's rank sets how many papers contain it (`query_tiers`).
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path

FIXTURE = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "fixtures"
    / "kaggle"
    / "arxiv-metadata-oai-snapshot.sample.jsonl"
)
YEARS = 20
BOOTSTRAP_DAYS = 90
READINGS_DAYS = 30  # guided readings have been written for this long
HF_START = datetime(2023, 5, 4, tzinfo=UTC)  # Hugging Face Daily Papers began
VOCABULARY_SIZE = 60_000
AUTHORS_PER_PAPER_POOL = 2.5
AUTHOR_OFFSET_SHARE = 1 / 600
AI_CATEGORIES = frozenset({"cs.AI", "cs.LG", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "cs.MA", "cs.RO", "stat.ML"})


def weights(table: str, key: type = str) -> dict:
    """A weight table written as `value:weight` pairs separated by white space."""
    pairs = (item.rsplit(":", 1) for item in table.split())
    return {key(value): float(weight) for value, weight in pairs}


# Primary category: relative weight (cs.* about 85 %).
PRIMARY = weights(
    """
    cs.LG:14 cs.CV:13 cs.CL:9 cs.AI:5 cs.RO:4 cs.CR:4 cs.HC:3 cs.SE:3 cs.IT:3 cs.DC:2.5 cs.NI:2 cs.DS:2 cs.CY:2
    cs.IR:2 cs.LO:1.5 cs.SI:1.5 cs.NE:1 cs.GT:1 cs.DB:1 cs.PL:1 cs.SD:1 cs.SY:1 cs.CG:0.5 cs.MA:0.5 cs.DM:0.5
    cs.AR:0.5 cs.CE:0.5 cs.GR:0.5 cs.MM:0.5 cs.NA:0.5 cs.CC:0.5 cs.FL:0.3 cs.ET:0.3 cs.DL:0.3 cs.MS:0.2
    cs.OS:0.2 cs.PF:0.2 cs.SC:0.2 cs.OH:0.2 cs.GL:0.02 stat.ML:3 eess.IV:2 math.OC:2 eess.SP:1.5 eess.SY:1.5
    quant-ph:1.5 eess.AS:1 physics.soc-ph:0.5 q-bio.NC:0.5 math.NA:0.5 math.CO:0.5 cond-mat.dis-nn:0.3
    math.PR:0.2 econ.TH:0.2 astro-ph.IM:0.2 q-fin.CP:0.1
    """
)
# Where cross-lists go from a primary (weights); others draw from GENERAL_CROSS.
NEIGHBOURS = {
    "cs.LG": {"stat.ML": 8, "cs.AI": 8, "cs.CV": 3, "cs.CL": 3, "math.OC": 2, "cs.NE": 1, "cs.DC": 1, "cs.CR": 1},
    "cs.CV": {"cs.LG": 8, "cs.AI": 5, "eess.IV": 4, "cs.MM": 1, "cs.RO": 1, "cs.GR": 1},
    "cs.CL": {"cs.AI": 8, "cs.LG": 7, "cs.IR": 1, "cs.SD": 0.5, "eess.AS": 0.5},
    "cs.AI": {"cs.LG": 8, "cs.CL": 3, "cs.MA": 1, "cs.LO": 1, "cs.HC": 1, "cs.RO": 1},
    "cs.RO": {"cs.AI": 4, "cs.LG": 4, "cs.CV": 3, "eess.SY": 3, "cs.SY": 3, "cs.HC": 1},
    "cs.CR": {"cs.LG": 4, "cs.AI": 2, "cs.NI": 2, "cs.SE": 1, "cs.DC": 1},
    "cs.IT": {"math.IT": 20, "eess.SP": 3, "cs.NI": 1},
    "stat.ML": {"cs.LG": 20, "stat.ME": 2, "math.ST": 1, "stat.TH": 1},
    "eess.IV": {"cs.CV": 15, "cs.LG": 3, "physics.med-ph": 1},
    "eess.SP": {"cs.IT": 5, "math.IT": 5, "cs.LG": 5},
    "eess.SY": {"cs.SY": 20, "math.OC": 3, "cs.RO": 1},
    "math.OC": {"cs.LG": 5, "cs.SY": 3, "eess.SY": 3, "stat.ML": 1},
    "quant-ph": {"cs.ET": 4, "cs.CC": 2, "cs.LG": 3, "cs.IT": 2},
    "eess.AS": {"cs.SD": 15, "cs.CL": 3, "cs.LG": 2},
}
GENERAL_CROSS = weights(
    """
    cs.LG:6 cs.AI:5 stat.ML:2 cs.CV:1.5 cs.CL:1 cs.SE:1 cs.HC:1 cs.DS:1 cs.SI:1 cs.CY:1 math.OC:1 cs.DC:1
    cs.NI:1 physics.soc-ph:0.5
    """
)
CROSS_COUNTS = {0: 38, 1: 34, 2: 18, 3: 7, 4: 3}
VERSIONS = {1: 60, 2: 25, 3: 9, 4: 3.5, 5: 1.5, 6: 0.6, 7: 0.25, 8: 0.1, 10: 0.04, 14: 0.01}
AUTHOR_COUNTS = weights(
    """
    1:9 2:16 3:18 4:16 5:12 6:8 7:5.5 8:4 9:2.8 10:2 12:2.5 15:2 20:1.2 30:0.6 60:0.25 120:0.1 300:0.05
    """,
    key=int,
)
LICENSES = {
    "http://arxiv.org/licenses/nonexclusive-distrib/1.0/": 55,
    "http://creativecommons.org/licenses/by/4.0/": 30,
    "http://creativecommons.org/licenses/by-nc-sa/4.0/": 6,
    "http://creativecommons.org/licenses/by-nc-nd/4.0/": 4,
    "http://creativecommons.org/licenses/by-sa/4.0/": 2,
    "": 3,
}
VENUES = ("NeurIPS", "ICML", "ICLR", "CVPR", "ICCV", "ACL", "EMNLP", "AAAI", "IJCAI", "KDD", "SIGMOD", "STOC", "ICRA")
FUNCTION_WORDS = (  # noqa: SIM905 - a paragraph of words reads better than a list literal
    "the of and in a to we is for with that on by this are as an from our be which can at it these their or has "
    "been have also show using based such than two both not its more into new while over between most results "
    "each through however here other where when then only one well first"
).split()
CS_WORDS = (  # noqa: SIM905
    "model models learning data method approach network networks performance training neural deep task tasks "
    "proposed problem paper framework algorithm algorithms language large state information time system systems "
    "existing propose methods different set multiple analysis demonstrate experiments graph dataset datasets "
    "image features novel efficient work tasks accuracy evaluation knowledge optimization distribution space "
    "generation representation representations inference attention transformer reasoning agents agent policy "
    "reinforcement robot control security privacy attacks adversarial benchmark benchmarks fine tuning "
    "pretrained prompt prompts semantic visual video text speech retrieval recommendation clustering "
    "classification detection segmentation estimation prediction sampling diffusion generative latent embedding "
    "embeddings convolutional recurrent memory parallel distributed computing hardware software code program "
    "programs verification formal logic theorem complexity bound bounds lower upper linear nonlinear convex "
    "gradient stochastic online federated robust robustness fairness bias interpretability explanation "
    "uncertainty bayesian probabilistic causal temporal spatial scene object objects point cloud depth "
    "tracking navigation planning multi modal multimodal vision instruction alignment human feedback user users "
    "social media wireless channel communication protocol scheduling energy quantum query queries database "
    "index storage compression coding theoretic game games equilibrium mechanism auction matching"
).split()
_WORD = re.compile(r"[a-z]{2,}")
_SYLLABLES = (  # noqa: SIM905
    "ka ri to na mi lo se vu ta ne ro li sa po de mu chi fa gen hal ber tor van zel quin dra mor "
    "pel sti rax bor lun tev cor dim pha gra nol ves"
).split()


def weighted(table: dict) -> tuple[list, list[float]]:
    """(values, cumulative weights) of a {value: weight} table."""
    return list(table), list(itertools.accumulate(table.values()))


def zipf_cumulative(size: int, *, offset: float = 0.0, exponent: float = 1.0) -> list[float]:
    return list(itertools.accumulate(1.0 / (rank + offset) ** exponent for rank in range(1, size + 1)))


def made_up_words(count: int, rng: random.Random, taken: set[str]) -> list[str]:
    words: list[str] = []
    while len(words) < count:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 3, 3, 4))))
        if word not in taken:
            taken.add(word)
            words.append(word)
    return words


def vocabulary(seed: int) -> list[str]:
    """Words by rank: function words, CS terms, the recorded sample's words by
    frequency, then made-up words up to VOCABULARY_SIZE (deterministic)."""
    words = list(dict.fromkeys([*FUNCTION_WORDS, *CS_WORDS]))
    counts: dict[str, int] = {}
    for line in FIXTURE.read_text().splitlines():
        item = json.loads(line)
        for word in _WORD.findall(f"{item['title']} {item['abstract']}".lower()):
            counts[word] = counts.get(word, 0) + 1
    taken = set(words)
    for word, _ in sorted(counts.items(), key=lambda pair: (-pair[1], pair[0])):
        if word not in taken:
            taken.add(word)
            words.append(word)
    rng = random.Random(f"{seed}:vocabulary")
    words += made_up_words(VOCABULARY_SIZE - len(words), rng, taken)
    return words[:VOCABULARY_SIZE]


def author_names(count: int, seed: int) -> list[str]:
    """`count` distinct names, from the first and last names of the recorded
    sample's authors and made-up surnames, some with a middle initial."""
    firsts: set[str] = set()
    lasts: set[str] = set()
    for line in FIXTURE.read_text().splitlines():
        for parsed in json.loads(line)["authors_parsed"]:
            if parsed[0].isalpha() and len(parsed[0]) > 1:
                lasts.add(parsed[0])
            if parsed[1] and parsed[1].replace(" ", "").replace(".", "").replace("-", "").isalpha():
                firsts.add(parsed[1])
    rng = random.Random(f"{seed}:authors")
    first_names, last_names = sorted(firsts), sorted(lasts)
    last_names += [w.capitalize() for w in made_up_words(max(0, count // 150), rng, {n.lower() for n in lasts})]
    names: list[str] = []
    seen: set[str] = set()
    initials = "ABCDEFGHJKLMNPRSTW"
    while len(names) < count:
        first, last = rng.choice(first_names), rng.choice(last_names)
        name = f"{first} {last}" if rng.random() < 0.7 else f"{first} {rng.choice(initials)}. {last}"
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


@dataclass(frozen=True)
class Timeline:
    """Papers per day over YEARS years ending at `now`, growing so that the last
    day brings about `daily` papers and the total is `papers`."""

    papers: int
    now: datetime
    daily: float

    @cached_property
    def growth(self) -> float:
        """k in rate(t) = daily * exp(-k * days_before_now), solved by bisection
        for the total (k = 0 if the total needs no growth at all)."""
        days = YEARS * 365
        if self.papers >= self.daily * days:
            return 0.0

        def total(k: float) -> float:
            return self.daily * (1 - math.exp(-k * days)) / k

        low, high = 1e-9, 10.0
        for _ in range(200):
            middle = (low + high) / 2
            low, high = (middle, high) if total(middle) > self.papers else (low, middle)
        return (low + high) / 2

    @cached_property
    def day_counts(self) -> list[int]:
        """Papers per day, oldest first, summing to `papers` exactly (largest remainders)."""
        days = YEARS * 365
        rates = [math.exp(-self.growth * (days - 1 - d)) * (0.6 if d % 7 in (5, 6) else 1.1) for d in range(days)]
        scale = self.papers / sum(rates)
        exact = [rate * scale for rate in rates]
        counts = [int(x) for x in exact]
        for d in sorted(range(days), key=lambda d: counts[d] - exact[d])[: self.papers - sum(counts)]:
            counts[d] += 1
        return counts

    @cached_property
    def day_starts(self) -> list[int]:
        return [0, *itertools.accumulate(self.day_counts)]

    def inclusion_grid(self, index: int) -> datetime:
        """The moment paper `index` (0-based, by inclusion order) reached arXiv's listing."""
        day = bisect.bisect_right(self.day_starts, index) - 1
        position = (index - self.day_starts[day] + 0.5) / self.day_counts[day]
        days = len(self.day_counts)
        return self.now - timedelta(days=days - day) + timedelta(seconds=position * 86_400)

    @property
    def bootstrap(self) -> datetime:
        return self.now - timedelta(days=BOOTSTRAP_DAYS)


def query_tiers(words: list[str], *, abstract_words: float = 175.0) -> dict[str, dict]:
    """Full-text queries of high, medium and low selectivity with the expected
    share of papers containing them, from the vocabulary's Zipf law."""
    cumulative = zipf_cumulative(len(words))
    total = cumulative[-1]

    def share(rank: int) -> float:
        return 1 - math.exp(-abstract_words / (rank * total))

    def pick(target: float, skip: frozenset = frozenset(FUNCTION_WORDS)) -> tuple[str, float]:
        best = min(
            (abs(math.log(share(r + 1) / target)), r) for r, w in enumerate(words) if w not in skip and len(w) > 3
        )[1]
        return words[best], share(best + 1)

    low, low_share = pick(0.30)
    medium, medium_share = pick(0.01)
    high, high_share = pick(0.0003)
    second, second_share = pick(0.03, frozenset({*FUNCTION_WORDS, low}))
    return {
        "low": {"q": low, "expected_share": low_share},
        "medium": {"q": medium, "expected_share": medium_share},
        "high": {"q": high, "expected_share": high_share},
        "two_words": {"q": f"{low} {second}", "expected_share": low_share * second_share},
    }
