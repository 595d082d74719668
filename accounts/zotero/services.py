"""Writes of the Zotero link: linking a library (the key encrypted at
rest), choosing the collection, unlinking, and asking for a sync or for a
topic follow seeded by a collection. Anything that talks to Zotero runs in
a task after the commit (accounts.zotero.tasks), never in the request."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.shared.secrets import encrypt_secret, secrets_available
from accounts.zotero import tasks
from accounts.zotero.models import ZoteroItem, ZoteroLink, ZoteroReport
from accounts.zotero.sync import zotero_sync_run

__all__ = [
    "ZoteroLinkError",
    "zotero_collection_choose",
    "zotero_link_set",
    "zotero_seed_request",
    "zotero_sync_request",
    "zotero_sync_run",
    "zotero_unlink",
]

MAX_KEY_LENGTH = 64


class ZoteroLinkError(ValueError):
    """Bad input for a link; `field` names what was wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _clean_library_id(value: object) -> int:
    text = str(value or "").strip()
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 2**53:
        raise ZoteroLinkError("library_id", _("Give the library's number (Zotero shows it on the API keys page)."))
    return int(text)


def _clean_key(value: object) -> str:
    key = str(value or "").strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii() or not key.isalnum():
        raise ZoteroLinkError(
            "api_key", _("Give a Zotero API key (letters and digits, from zotero.org/settings/keys).")
        )
    return key


def _reset(link: ZoteroLink) -> None:
    """A new library or collection starts from nothing: no items in step, no reports."""
    ZoteroItem.objects.filter(link=link).delete()
    ZoteroReport.objects.filter(link=link).delete()
    link.library_version = 0
    link.backoff_until = None


@transaction.atomic
def zotero_link_set(*, user: User, library_type: str, library_id: object, api_key: object) -> ZoteroLink:
    """Link (or re-link) the user's Zotero library; its collections are listed by a task."""
    if library_type not in ZoteroLink.LibraryType.values:
        raise ZoteroLinkError("library_type", _("Use user or group."))
    number, key = _clean_library_id(library_id), _clean_key(api_key)
    if not secrets_available():
        raise ZoteroLinkError("api_key", _("This site has no key to store secrets with; ask its operator."))
    link = ZoteroLink.objects.select_for_update().filter(user=user).first() or ZoteroLink(user=user)
    if link.pk is None or (link.library_type, link.library_id) != (library_type, number):
        if link.pk is not None:
            _reset(link)
        link.collection_key = link.collection_name = ""
        link.collections = []
    link.library_type, link.library_id, link.api_key = library_type, number, encrypt_secret(key)
    link.last_error, link.last_error_at = "", None
    link.save()
    transaction.on_commit(lambda: tasks.zotero_check.delay(link.pk))
    return link


def _own_link(user: User) -> ZoteroLink:
    link = ZoteroLink.objects.select_for_update().filter(user=user).first()
    if link is None:
        raise ZoteroLinkError("zotero", _("Link a Zotero library first."))
    return link


def _collection_name(link: ZoteroLink, key: str) -> str:
    names = {pair[0]: pair[1] for pair in link.collections}
    if key not in names:
        raise ZoteroLinkError("collection_key", _("Choose one of the library's collections."))
    return names[key]


@transaction.atomic
def zotero_collection_choose(*, user: User, collection_key: str) -> ZoteroLink:
    """Keep the research record in step with this collection (a sync starts)."""
    link = _own_link(user)
    name = _collection_name(link, str(collection_key or ""))
    if link.collection_key != collection_key:
        _reset(link)
    link.collection_key, link.collection_name = collection_key, name
    link.save()
    transaction.on_commit(lambda: tasks.zotero_sync.delay(link.pk))
    return link


@transaction.atomic
def zotero_unlink(*, user: User) -> bool:
    """Forget the library, its key and what was in step (Zotero keeps its items)."""
    deleted, _by_model = ZoteroLink.objects.filter(user=user).delete()
    return bool(deleted)


def zotero_sync_request(*, user: User) -> ZoteroLink:
    link = _own_link(user)
    if not link.collection_key:
        raise ZoteroLinkError("collection_key", _("Choose a collection first."))
    transaction.on_commit(lambda: tasks.zotero_sync.delay(link.pk))
    return link


@transaction.atomic
def zotero_seed_request(*, user: User, collection_key: str) -> ZoteroLink:
    """Ask for a topic follow seeded by a collection's papers (made by a task; its outcome shows on /me/)."""
    link = _own_link(user)
    _collection_name(link, str(collection_key or ""))
    ZoteroLink.objects.filter(pk=link.pk).update(seed_result=_("Reading the collection…"))
    transaction.on_commit(lambda: tasks.zotero_seed.delay(link.pk, collection_key))
    return link
