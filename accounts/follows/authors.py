"""The library's author names as a follow sees them: which stored names are
one normalised variant, and the candidates for a name typed by a user.

Author names are indexed once, by (UPPER(name), name) (harvest.models.Author).
A candidate search reads the index range of the first initial (with its
accented forms), filters it in the database by a regular expression for the
surname with any accents and separators, and checks the few names left with
the Python normalisation, so nothing is added to the harvest's tables.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Q
from django.db.models.functions import Upper

from accounts.follows.names import (
    folded_regex,
    letters_folding_to,
    normalise_name,
    same_person_shape,
    surname_and_initial,
)
from harvest.models import Author, Authorship, Paper, PaperCategory

MAX_CANDIDATES = 30
RECENT_PAPERS = 3
TOP_CATEGORIES = 3


@dataclass
class RecentPaper:
    arxiv_id: str
    title: str
    published: datetime | None


@dataclass
class AuthorCandidate:
    name: str
    normalised: str
    paper_count: int
    recent_papers: list[RecentPaper] = field(default_factory=list)
    top_categories: list[tuple[str, int]] = field(default_factory=list)


def _initial_ranges(initial: str) -> Q:
    """Names whose upper-cased form starts with one of the letters folding to `initial`."""
    condition = Q()
    for letter in sorted({ch.upper() for ch in letters_folding_to(initial)} - {""}):
        if len(letter) != 1:
            continue
        condition |= Q(upper_name__gte=letter, upper_name__lt=chr(ord(letter) + 1))
    return condition


def _authors_shaped(surname: str, initial: str) -> list[tuple[int, str, str]]:
    """(id, name, normalised) of stored names with this surname and initial."""
    if not surname or not initial:
        return []
    rows = (
        Author.objects.annotate(upper_name=Upper("name"))
        .filter(_initial_ranges(initial), name__iregex=folded_regex(surname))
        .values_list("id", "name")
    )
    out = []
    for author_id, name in rows:
        normalised = normalise_name(name)
        if same_person_shape(normalised, surname=surname, initial=initial):
            out.append((author_id, name, normalised))
    return out


def author_ids_for(variants: Iterable[str]) -> list[int]:
    """Ids of the stored author names whose normalised form is one of `variants`."""
    ids: list[int] = []
    for variant in set(variants):
        words = variant.split()
        if len(words) < 2:
            continue
        surname, initial = words[-1], words[0][:1]
        ids.extend(author_id for author_id, _, normalised in _authors_shaped(surname, initial) if normalised == variant)
    return ids


def author_candidates(*, name: str) -> list[AuthorCandidate]:
    """The library's names sharing the surname and first initial of `name`,
    one per normalised variant, most papers first, each with its paper count,
    most recent papers and top categories."""
    surname, initial = surname_and_initial(name)
    shaped = _authors_shaped(surname, initial)
    if not shaped:
        return []
    by_variant: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for author_id, stored, normalised in shaped:
        by_variant[normalised].append((author_id, stored))
    author_ids = [author_id for author_id, _, _ in shaped]
    counts = dict(
        Authorship.objects.filter(author_id__in=author_ids)
        .values("author_id")
        .annotate(n=Count("paper_id", distinct=True))
        .values_list("author_id", "n")
    )
    candidates = []
    for normalised, stored in by_variant.items():
        # The spelling with the most papers names the variant.
        stored.sort(key=lambda row: -counts.get(row[0], 0))
        candidates.append(
            AuthorCandidate(
                name=stored[0][1],
                normalised=normalised,
                paper_count=sum(counts.get(author_id, 0) for author_id, _ in stored),
            )
        )
    candidates.sort(key=lambda c: (-c.paper_count, c.normalised))
    candidates = candidates[:MAX_CANDIDATES]
    for candidate in candidates:
        ids = [author_id for author_id, _ in by_variant[candidate.normalised]]
        paper_ids = Authorship.objects.filter(author_id__in=ids).values("paper_id")
        recent = Paper.objects.filter(id__in=paper_ids).order_by("-published", "-id")[:RECENT_PAPERS]
        candidate.recent_papers = [
            RecentPaper(p.arxiv_id, p.title, p.published) for p in recent.only("arxiv_id", "title", "published")
        ]
        tally = Counter(
            dict(
                PaperCategory.objects.filter(paper_id__in=paper_ids)
                .values("category")
                .annotate(n=Count("id"))
                .values_list("category", "n")
            )
        )
        candidate.top_categories = tally.most_common(TOP_CATEGORIES)
    return candidates
