"""Writes around recommendations: the debounced retraining after a record
changes, "not interested", "save" (through accounts.records), opening one."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.recommend import tasks
from accounts.recommend.debounce import retrain_claim
from accounts.recommend.models import NotInterested, Recommendation, RecommenderProfile
from accounts.records.services import record_save


def schedule_retrain(user_id: int) -> bool:
    """Queue one retraining RECOMMEND_RETRAIN_DELAY_SECONDS from now, unless one
    is already waiting: a burst of saves trains once. True when this call queued it."""
    delay = settings.RECOMMEND_RETRAIN_DELAY_SECONDS
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


def recommendation_open(*, user: User, recommendation: Recommendation) -> None:
    """Opened: seen, so it leaves the tab."""
    Recommendation.objects.filter(user=user, paper_id=recommendation.paper_id, seen_at__isnull=True).update(
        seen_at=timezone.now()
    )


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
