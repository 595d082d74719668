"""The value types the Zotero domain shows portal: listed here once."""

from accounts.zotero.items import STATE_TAGS
from accounts.zotero.services import ZoteroLinkError

__all__ = ["STATE_TAGS", "ZoteroLinkError"]
