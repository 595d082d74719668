"""Email alerts' reactions to identity's signals (connected in AccountsConfig.ready)."""

from __future__ import annotations

from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.alerts.models import AlertSettings
from accounts.models import User


@receiver(post_save, sender=User, dispatch_uid="alerts.user_created")
def on_user_created(sender, instance: User, created: bool, raw: bool = False, **kwargs) -> None:
    """Every account has its delivery settings (and so its feed secret) from
    the start, so that pages showing them only read."""
    if created and not raw:
        AlertSettings.objects.get_or_create(user=instance)
