"""The simple rankings every method must beat: random, newest first, and
newest in the researcher's most-saved categories. Each takes the saved
papers and the candidates and returns the candidates' indices, best first."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

from accounts.recommend.features import PaperText

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _published(paper: PaperText) -> datetime:
    return paper.extra.get("published") or _EPOCH


def random_ranking(saved: Sequence[PaperText], candidates: Sequence[PaperText], *, seed: int = 0) -> list[int]:
    order = list(range(len(candidates)))
    random.Random(seed).shuffle(order)
    return order


def newest_first(saved: Sequence[PaperText], candidates: Sequence[PaperText], *, seed: int = 0) -> list[int]:
    return sorted(
        range(len(candidates)), key=lambda i: (_published(candidates[i]), str(candidates[i].id)), reverse=True
    )


def most_saved_categories(saved: Sequence[PaperText]) -> set[str]:
    """The categories (primary or cross-listed) that the most saved papers list."""
    counts = Counter(code for paper in saved for code in set(paper.categories))
    if not counts:
        return set()
    top = max(counts.values())
    return {code for code, count in counts.items() if count == top}


def newest_in_saved_categories(
    saved: Sequence[PaperText], candidates: Sequence[PaperText], *, seed: int = 0
) -> list[int]:
    """Papers in the most-saved categories first, each group newest first."""
    wanted = most_saved_categories(saved)
    newest = newest_first(saved, candidates)
    inside = [i for i in newest if wanted & set(candidates[i].categories)]
    outside = [i for i in newest if not wanted & set(candidates[i].categories)]
    return inside + outside


BASELINES = {
    "random": random_ranking,
    "newest first": newest_first,
    "newest in most-saved categories": newest_in_saved_categories,
}
