"""Who may read soon: the researchers the workers score each harvest for
(others get theirs when they come back)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from accounts.models import ApiToken


def active_since(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=settings.PAPERTRAIL_TRAIL_ACTIVE_DAYS)


def recently_active(since: datetime | None = None) -> Q:
    """A filter of users who joined, signed in or used an API token within
    PAPERTRAIL_TRAIL_ACTIVE_DAYS."""
    since = since or active_since()
    return (
        Q(last_login__gte=since)
        | Q(date_joined__gte=since)
        | Exists(ApiToken.objects.filter(user=OuterRef("pk"), last_used_at__gte=since))
    )
