"""The groups' reactions to identity's changes (connected in AccountsConfig.ready)."""

from __future__ import annotations

from django.db.models.signals import pre_delete
from django.dispatch import receiver

from accounts.groups.models import Membership
from accounts.groups.services import group_delete, ownership_transfer
from accounts.models import User


@receiver(pre_delete, sender=User, dispatch_uid="groups.owner_deleting")
def on_user_deleting(sender, instance: User, **kwargs) -> None:
    """An owner's account goes: each of their groups passes to its longest
    standing member, or, with no other member, goes with them."""
    owned = Membership.objects.filter(user=instance, role=Membership.Role.OWNER).select_related("group")
    for membership in owned:
        heir = (
            Membership.objects.filter(group=membership.group).exclude(user=instance).order_by("joined_at", "pk").first()
        )
        if heir is None:
            group_delete(group=membership.group)
        else:
            ownership_transfer(group=membership.group, to_user_id=heir.user_id)
