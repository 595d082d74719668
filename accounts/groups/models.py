"""Lab groups: a researcher (the owner) makes a group, invites others by a
signed link, and the group owns follows (accounts.follows.models.Follow.group)
whose shared trail each member reads with their own read state
(accounts.trail.models.GroupTrailState). Our own model, not django.contrib.auth's
Group: that one's name is unique site-wide and carries permissions, and two labs
may both be called "NLP" (docs/decisions.md, "Lab groups")."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy


class LabGroup(models.Model):
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("lab group")
        verbose_name_plural = gettext_lazy("lab groups")

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """One member of a group; exactly one of them is its owner."""

    class Role(models.TextChoices):
        OWNER = "owner", gettext_lazy("owner")
        MEMBER = "member", gettext_lazy("member")

    group = models.ForeignKey(LabGroup, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = gettext_lazy("group membership")
        verbose_name_plural = gettext_lazy("group memberships")
        constraints = [
            models.UniqueConstraint(fields=["user", "group"], name="membership_user_group_unique"),
            models.UniqueConstraint(fields=["group"], condition=Q(role="owner"), name="membership_one_owner"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.group_id} ({self.role})"


class GroupInvite(models.Model):
    """An invitation link: the link carries a signed (group, invite, nonce);
    the row says whether it still holds (not expired, not revoked)."""

    group = models.ForeignKey(LabGroup, on_delete=models.CASCADE, related_name="invites")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    nonce = models.CharField(max_length=32, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = gettext_lazy("group invite")
        verbose_name_plural = gettext_lazy("group invites")

    def __str__(self) -> str:
        return f"invite {self.pk} to {self.group_id}"

    def usable(self, now) -> bool:
        return self.revoked_at is None and self.expires_at > now
