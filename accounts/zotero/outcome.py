"""What one sync run did, and the steps the pull and the push share: the
client of a link, a report to the researcher, and a conflict kept by the
later change (the record's `updated_at` against the item's `dateModified`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils.dateparse import parse_datetime

from accounts.records.models import Record
from accounts.records.services import record_save
from accounts.shared.secrets import decrypt_secret
from accounts.zotero.client import ZoteroClient
from accounts.zotero.items import item_tags_and_state
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport


@dataclass
class SyncResult:
    pulled: int = 0
    pushed: int = 0
    conflicts: int = 0
    removed: int = 0
    reported: int = 0
    retry_in: float | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = (
            f"pulled {self.pulled}, pushed {self.pushed}, removed {self.removed}, "
            f"conflicts {self.conflicts}, reported {self.reported}"
        )
        if self.retry_in is not None:
            text += f", again in {self.retry_in:.0f} s"
        return f"{text}; failed: {self.error}" if self.error else text


def client_for(link: ZoteroLink) -> ZoteroClient:
    return ZoteroClient(
        library_type=link.library_type, library_id=link.library_id, api_key=decrypt_secret(link.api_key)
    )


def report(link: ZoteroLink, kind: str, key: str, title: str) -> int:
    _report_row, created = ZoteroReport.objects.get_or_create(
        link=link, item_key=key, kind=kind, defaults={"title": title[:500]}
    )
    return int(created)


def changed_at(data: dict) -> datetime | None:
    return parse_datetime(data.get("dateModified") or "")


def apply_theirs(link: ZoteroLink, mine: ZoteroItem, data: dict, version: int) -> None:
    tags, state = item_tags_and_state(data)
    record, _created = record_save(user=link.user, paper=mine.paper, state=state, tags=tags)
    mine.item_version, mine.synced_updated_at = version, record.updated_at
    mine.save(update_fields=["item_version", "synced_updated_at"])


def resolve(link: ZoteroLink, mine: ZoteroItem, record: Record | None, item: dict, result: SyncResult) -> bool:
    """A change on both sides: the later wins. True when ours does (the
    caller writes it at the item's current version)."""
    data, version = item["data"], item["version"]
    theirs_at = changed_at(data)
    ours_wins = record is not None and (theirs_at is None or record.updated_at > theirs_at)
    result.conflicts += 1
    title = data.get("title", "")
    if ours_wins:
        mine.item_version = version
        mine.save(update_fields=["item_version"])
        result.reported += report(link, ZoteroReport.Kind.CONFLICT_OURS, mine.item_key, title)
        return True
    apply_theirs(link, mine, data, version)
    result.reported += report(link, ZoteroReport.Kind.CONFLICT_THEIRS, mine.item_key, title)
    return False
