"""Values every page's frame needs."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def accounts(request: HttpRequest) -> dict[str, bool]:
    """Whether the header offers sign-up (registration can be closed)."""
    return {"signup_open": settings.SIGNUP_OPEN}
