"""Writes of delivery: unsubscribing (one follow or every alert, from the
link in a mail), resubscribing and asking for mail to a failing address
again (from /me/), and the weekly alert's weekday."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.alerts.links import alert_settings_for, feed_secret_rotate
from accounts.alerts.models import AlertSettings, AlertUnsubscribe
from accounts.follows.models import Follow
from accounts.models import User

__all__ = [
    "MAILED",
    "alert_address_retry",
    "alert_unsubscribed_follows",
    "alert_weekly_day_set",
    "alerts_resubscribe",
    "alerts_unsubscribe",
    "feed_secret_rotate",
]

MAILED = (Follow.Delivery.DAILY, Follow.Delivery.WEEKLY)


@transaction.atomic
def alerts_unsubscribe(*, user: User, follow_id: int | None) -> bool:
    """Stop one follow's alerts (it stays in the trail) or every alert.
    False when there was nothing to stop (already done: the link is idempotent)."""
    if follow_id is None:
        alert_settings = alert_settings_for(user)
        done = AlertSettings.objects.filter(pk=alert_settings.pk, unsubscribed_all=False).update(
            unsubscribed_all=True, unsubscribed_at=timezone.now()
        )
        return bool(done)
    follow = Follow.objects.select_for_update().filter(user=user, pk=follow_id).first()
    if follow is None or follow.delivery not in MAILED:
        return False
    AlertUnsubscribe.objects.update_or_create(
        follow=follow, defaults={"user": user, "previous_delivery": follow.delivery, "created_at": timezone.now()}
    )
    Follow.objects.filter(pk=follow.pk).update(delivery=Follow.Delivery.TRAIL, updated_at=timezone.now())
    return True


@transaction.atomic
def alerts_resubscribe(*, user: User, follow_id: int | None) -> bool:
    """Undo an unsubscribe: every alert again, or the follow's delivery as it was."""
    if follow_id is None:
        return bool(
            AlertSettings.objects.filter(user=user, unsubscribed_all=True).update(
                unsubscribed_all=False, unsubscribed_at=None
            )
        )
    left = AlertUnsubscribe.objects.filter(user=user, follow_id=follow_id).select_related("follow").first()
    if left is None:
        return False
    if left.follow.delivery == Follow.Delivery.TRAIL:
        Follow.objects.filter(pk=follow_id).update(delivery=left.previous_delivery, updated_at=timezone.now())
    left.delete()
    return True


@transaction.atomic
def alert_address_retry(*, user: User) -> bool:
    """The user says the address works again: mail to it resumes."""
    return bool(
        AlertSettings.objects.filter(user=user)
        .exclude(failing_address="")
        .update(failing_address="", failing_since=None, failing_reason="")
    )


def alert_weekly_day_set(*, user: User, weekday: int) -> None:
    if weekday not in AlertSettings.Weekday.values:
        raise ValueError(f"weekday must be one of {AlertSettings.Weekday.values}")
    alert_settings = alert_settings_for(user)
    AlertSettings.objects.filter(pk=alert_settings.pk).update(weekly_day=weekday)


def alert_unsubscribed_follows(*, user: User) -> list[AlertUnsubscribe]:
    return list(AlertUnsubscribe.objects.filter(user=user).select_related("follow").order_by("follow_id"))
