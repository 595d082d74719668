"""Reading a user's training examples from the database: saved papers (with
when they were saved), explicit negatives (dismissed trail cards and
recommendations marked not interested), the papers rated thumbs up (with
when; picked papers among them) and thumbs down, and a background sample of
recent papers."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from accounts.models import User
from accounts.recommend.features import PaperText
from accounts.recommend.models import NotInterested, Rating
from accounts.records.models import Record, RecordTag
from accounts.trail.selectors import trail_dismissed_papers
from harvest.models import Paper

# The background is drawn from this many of the newest papers: what the
# model will be asked about looks like them.
BACKGROUND_POOL = 3000
BACKGROUND_SIZE = 300
TEXT_FIELDS = ("id", "title", "abstract", "authors", "categories")


@dataclass
class Examples:
    saved: list[tuple[PaperText, datetime]]
    negatives: list[PaperText]
    background: list[PaperText]
    tags: dict[int, set[int]] = field(default_factory=dict)  # tag id -> saved paper ids
    # Thumbs up (with when it was given) and down; a paper saved or refused
    # is counted there, not again here.
    liked: list[tuple[PaperText, datetime]] = field(default_factory=list)
    disliked: list[PaperText] = field(default_factory=list)
    # How many of the liked papers were picked from a day's papers (the picks
    # page): a deliberate seed, enough to train on without saves.
    picked: int = 0


def paper_texts(paper_ids) -> dict[int, PaperText]:
    rows = Paper.objects.filter(pk__in=list(paper_ids)).values_list(*TEXT_FIELDS)
    return {row[0]: PaperText(*row) for row in rows}


def saved_count(user: User) -> int:
    return Record.objects.filter(user=user).count()


def negative_paper_ids(user: User) -> set[int]:
    dismissed = trail_dismissed_papers(user_id=user.pk)
    refused = NotInterested.objects.filter(user=user).values_list("paper_id", flat=True)
    return set(dismissed) | set(refused)


def background_paper_ids(count: int, *, exclude: set[int]) -> list[int]:
    """The newest papers' ids, these left out: what a model is asked about looks like them."""
    newest = Paper.objects.order_by("-included_at", "-id").values_list("id", flat=True)[: count + len(exclude)]
    return [pk for pk in newest if pk not in exclude][:count]


def user_examples(user: User, *, seed: int | None = None) -> Examples:
    saves = dict(Record.objects.filter(user=user).values_list("paper_id", "saved_at"))
    negative_ids = negative_paper_ids(user) - set(saves)
    ratings = Rating.objects.filter(user=user).exclude(paper_id__in=[*saves, *negative_ids])
    likes, dislikes, picks = {}, set(), set()
    for paper_id, value, source, at in ratings.values_list("paper_id", "value", "source", "updated_at"):
        if value == Rating.Value.UP:
            likes[paper_id] = at
            if source == Rating.Source.PICK:
                picks.add(paper_id)
        else:
            dislikes.add(paper_id)
    rated = likes.keys() | dislikes
    pool = list(Paper.objects.order_by("-included_at", "-id").values_list("id", flat=True)[:BACKGROUND_POOL])
    pool = [pk for pk in pool if pk not in saves and pk not in negative_ids and pk not in rated]
    # Seeded by the user: the same record trains the same model (and tests repeat).
    rng = random.Random(seed if seed is not None else user.pk)
    background_ids = rng.sample(pool, min(BACKGROUND_SIZE, len(pool)))
    texts = paper_texts([*saves, *negative_ids, *rated, *background_ids])
    tags: dict[int, set[int]] = {}
    for tag_id, paper_id in RecordTag.objects.filter(user=user).values_list("tag_id", "record__paper_id"):
        tags.setdefault(tag_id, set()).add(paper_id)
    return Examples(
        saved=[(texts[pk], at) for pk, at in sorted(saves.items(), key=lambda kv: kv[1]) if pk in texts],
        negatives=[texts[pk] for pk in negative_ids if pk in texts],
        background=[texts[pk] for pk in background_ids if pk in texts],
        tags=tags,
        liked=[(texts[pk], at) for pk, at in sorted(likes.items(), key=lambda kv: kv[1]) if pk in texts],
        disliked=[texts[pk] for pk in sorted(dislikes) if pk in texts],
        picked=len(picks & texts.keys()),
    )
