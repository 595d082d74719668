"""Writes around recommendations: the debounced retraining after a record
changes, "not interested", "save" (through accounts.records), opening one."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.models import NotInterested, Recommendation, RecommenderProfile, User
from accounts.records import record_save

RETRAIN_KEY = "recommend:retrain:{user_id}"


def schedule_retrain(user_id: int) -> bool:
    """Queue one retraining RECOMMEND_RETRAIN_DELAY_SECONDS from now, unless one
    is already waiting (an atomic add of a key the task removes when it starts):
    a burst of saves trains once. True when this call queued it."""
    delay = settings.RECOMMEND_RETRAIN_DELAY_SECONDS
    if not cache.add(RETRAIN_KEY.format(user_id=user_id), 1, timeout=delay + 600):
        return False
    from accounts import tasks  # tasks import the trainer; keep signal handling light

    transaction.on_commit(lambda: tasks.retrain_recommendations.apply_async((user_id,), countdown=delay))
    return True


def retrain_claimed(user_id: int) -> None:
    """The retraining starts: later changes queue another one."""
    cache.delete(RETRAIN_KEY.format(user_id=user_id))


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
