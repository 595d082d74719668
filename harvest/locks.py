"""A per-source lease in the database, so two runs of one source never overlap.

Why a lease on the Source row rather than a Redis lock: it works the same on
the embedded SQLite default and on PostgreSQL, and it is checked in the same
database the run writes to. A holder renews it after every page; a holder
that is gone stops blocking others at once when it ran on this host (its
process no longer exists) and, from anywhere, once its lease expires
(settings.HARVEST_LEASE_SECONDS, longer than a page can take).
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from harvest.models import Source

logger = logging.getLogger(__name__)


class LeaseLost(RuntimeError):
    """Another process took this source over (our lease expired)."""


def new_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _holder_is_gone(owner: str) -> bool:
    """True when the holder ran on this host and its process has exited."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdecimal():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def acquire(source: Source, owner: str) -> bool:
    now = timezone.now()
    expires = now + timedelta(seconds=settings.HARVEST_LEASE_SECONDS)
    free = Q(lease_owner="") | Q(lease_expires_at__lt=now) | Q(lease_owner=owner)
    if Source.objects.filter(pk=source.pk).filter(free).update(lease_owner=owner, lease_expires_at=expires):
        return True
    holder = Source.objects.filter(pk=source.pk).values_list("lease_owner", flat=True).first() or ""
    if holder and _holder_is_gone(holder):
        taken = Source.objects.filter(pk=source.pk, lease_owner=holder).update(
            lease_owner=owner, lease_expires_at=expires
        )
        if taken:
            logger.warning("took over the lease of %s from %s, whose process is gone", source.slug, holder)
            return True
    return False


def renew(source: Source, owner: str) -> None:
    expires = timezone.now() + timedelta(seconds=settings.HARVEST_LEASE_SECONDS)
    if not Source.objects.filter(pk=source.pk, lease_owner=owner).update(lease_expires_at=expires):
        raise LeaseLost(f"lease on {source.slug} was taken over")


def release(source: Source, owner: str) -> None:
    Source.objects.filter(pk=source.pk, lease_owner=owner).update(lease_owner="", lease_expires_at=None)
