"""Reads of the Zotero link, for /me/ and the API: never the key."""

from __future__ import annotations

from accounts.models import User
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport

__all__ = ["zotero_link_get", "zotero_reports", "zotero_synced_count"]

REPORTS_SHOWN = 20


def zotero_link_get(*, user: User) -> ZoteroLink | None:
    if not user.is_authenticated:
        return None
    return ZoteroLink.objects.filter(user=user).defer("api_key").first()


def zotero_reports(*, link: ZoteroLink, limit: int = REPORTS_SHOWN) -> list[ZoteroReport]:
    return list(ZoteroReport.objects.filter(link=link).order_by("-created_at", "-id")[:limit])


def zotero_synced_count(*, link: ZoteroLink) -> int:
    return ZoteroItem.objects.filter(link=link).count()
