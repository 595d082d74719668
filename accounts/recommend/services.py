"""Writes around recommendations: the debounced retraining after a record
changes, "not interested", "save" (through accounts.records), a paper's page
opened (the record, the trail, the recommendations and the full-text queue told
at once), thumbs
up / down on any paper (rating_set, rating_clear) and the papers picked from
a day's papers (picks_record)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.recommend import tasks
from accounts.recommend.debounce import examples_changed, retrain_claim
from accounts.recommend.models import NotInterested, Rating, Recommendation, RecommenderProfile
from accounts.recommend.picks import MAX_PICKS, pick_page
from accounts.recommend.quota import opened_fetch_allowed
from accounts.records.services import record_opened, record_save
from accounts.trail.services import trail_mark_read_papers
from harvest.fulltext.models import FullText
from harvest.fulltext.services import request_latest_full_texts
from harvest.models import Paper

# The API's and the pages' words for a rating's stored value.
RATING_WORDS = {"up": Rating.Value.UP, "down": Rating.Value.DOWN}


def schedule_retrain(user_id: int) -> bool:
    """Queue one retraining RECOMMEND_RETRAIN_DELAY_SECONDS from now, unless one
    is already waiting: a burst of saves trains once. True when this call queued it.
    The change is counted, so the trail says "updating" until it is learnt."""
    delay = settings.RECOMMEND_RETRAIN_DELAY_SECONDS
    examples_changed(user_id, keep=delay + 600)
    if not retrain_claim(user_id, timeout=delay + 600):
        return False
    transaction.on_commit(lambda: tasks.retrain_recommendations.apply_async((user_id,), countdown=delay))
    return True


@transaction.atomic
def recommendation_not_interested(*, user: User, recommendation: Recommendation) -> NotInterested:
    """The paper leaves the user's recommendations (the selector leaves refused
    papers out; the row stays, so a second "no" answers the same) and counts
    as a negative."""
    refusal, created = NotInterested.objects.get_or_create(user=user, paper_id=recommendation.paper_id)
    if created:
        schedule_retrain(user.pk)
    return refusal


def recommendation_save(*, user: User, recommendation: Recommendation):
    """Save the recommended paper to the record (the record's signal retrains)."""
    record, _created = record_save(user=user, paper=recommendation.paper)
    return record


@transaction.atomic
def paper_opened(*, user: User, paper: Paper) -> None:
    """The reader opened the paper's page (its POST once loaded; the page's
    GET writes nothing): the record's last read version is the latest, the
    paper's trail cards are read, its recommendations are seen, so they
    leave the tab, and its latest version's full text is wanted (with the one
    before it, for a revision's "what changed"), so that its reading is written
    from it (up to the reader's daily cap). Opening it again changes nothing."""
    record_opened(user=user, paper=paper)
    trail_mark_read_papers(user=user, paper_ids=[paper.pk])
    Recommendation.objects.filter(user=user, paper=paper, seen_at__isnull=True).update(seen_at=timezone.now())
    if opened_fetch_allowed(user.pk, now=timezone.now()):
        request_latest_full_texts(paper_ids=[paper.pk], reason=FullText.Reason.OPENED)


def recommender_set_per_tag(*, user: User, per_tag: bool) -> RecommenderProfile:
    profile, _ = RecommenderProfile.objects.get_or_create(user=user)
    if profile.per_tag != per_tag:
        profile.per_tag = per_tag
        profile.save(update_fields=["per_tag"])
        schedule_retrain(user.pk)
    return profile


MAX_DESCRIPTION = 2000  # characters: a few paragraphs; the encoder reads about 500 tokens


def recommender_set_description(*, user: User, description: str) -> RecommenderProfile:
    """The researcher's interests in their own words (English or Chinese):
    embedded like a search query, it seeds the ranking before any save."""
    text = description.strip()
    if len(text) > MAX_DESCRIPTION:
        raise ValueError(f"at most {MAX_DESCRIPTION} characters")
    profile, _ = RecommenderProfile.objects.get_or_create(user=user)
    if profile.description != text:
        profile.description = text
        profile.save(update_fields=["description"])
        schedule_retrain(user.pk)
    return profile


def rating_word(value: int | None) -> str | None:
    """ "up", "down" or None (not rated)."""
    return {Rating.Value.UP: "up", Rating.Value.DOWN: "down"}.get(value)


@transaction.atomic
def rating_set(*, user: User, paper: Paper, value: int) -> tuple[Rating, bool]:
    """Thumbs up (+1) or down (-1) on a paper, replacing the user's earlier
    rating of it; the model retrains (debounced) when the value changed.
    Returns the rating and whether it is new."""
    if value not in Rating.Value.values:
        raise ValueError(f"a rating is +1 or -1, not {value!r}")
    now = timezone.now()
    rating, created = Rating.objects.select_for_update().get_or_create(
        user=user, paper=paper, defaults={"value": value, "created_at": now, "updated_at": now}
    )
    if not created and rating.value != value:
        rating.value, rating.updated_at = value, now
        rating.save(update_fields=["value", "updated_at"])
    elif not created:
        return rating, False
    schedule_retrain(user.pk)
    return rating, created


@transaction.atomic
def rating_clear(*, user: User, paper: Paper) -> bool:
    """Undo the user's rating of a paper; True when there was one."""
    deleted, _ = Rating.objects.filter(user=user, paper=paper).delete()
    if deleted:
        schedule_retrain(user.pk)
    return bool(deleted)


@dataclass
class PicksResult:
    picked: list[str]  # the arXiv ids, as posted (without repeats)
    new: int  # of them, not rated up before
    total: int  # the researcher's picks so far, every day


_VERSION = re.compile(r"v\d+$")


@transaction.atomic
def picks_record(*, user: User, arxiv_ids: Sequence[str], day: date | None = None) -> PicksResult:
    """The researcher picked these papers (arXiv ids) from the picks page of
    `day` (the latest day when None): each is a thumbs up from the page
    (Rating.Source.PICK), and the model retrains (debounced) when one is new.
    The papers offered and not picked say nothing: they are no negatives.
    Raises ValidationError on `papers`: none, more than MAX_PICKS, or one
    the page did not offer."""
    wanted = list(dict.fromkeys(_VERSION.sub("", str(arxiv_id).strip()) for arxiv_id in arxiv_ids))
    wanted = [arxiv_id for arxiv_id in wanted if arxiv_id]
    if not wanted:
        raise ValidationError({"papers": _("Pick at least one paper.")})
    if len(wanted) > MAX_PICKS:
        message = _("Pick at most %(max)d papers; you chose %(n)d.") % {"max": MAX_PICKS, "n": len(wanted)}
        raise ValidationError({"papers": message})
    offered = pick_page(user=user, day=day).offered
    strange = [arxiv_id for arxiv_id in wanted if arxiv_id not in offered]
    if strange:
        raise ValidationError(
            {
                "papers": _("%(ids)s: not among the papers offered to you; reload the page and pick again.")
                % {"ids": ", ".join(arxiv_id[:64] for arxiv_id in strange[:5])}
            }
        )
    now = timezone.now()
    new = 0
    for arxiv_id in wanted:
        rating, created = Rating.objects.select_for_update().get_or_create(
            user=user,
            paper=offered[arxiv_id],
            defaults={"value": Rating.Value.UP, "source": Rating.Source.PICK, "created_at": now, "updated_at": now},
        )
        if not created and rating.value != Rating.Value.UP:
            rating.value, rating.source, rating.updated_at = Rating.Value.UP, Rating.Source.PICK, now
            rating.save(update_fields=["value", "source", "updated_at"])
        elif not created:
            continue
        new += 1
    if new:
        schedule_retrain(user.pk)
    total = Rating.objects.filter(user=user, source=Rating.Source.PICK, value=Rating.Value.UP).count()
    return PicksResult(wanted, new, total)
