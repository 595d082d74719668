"""The jobs of a link that read Zotero: checking a new key (it must reach
the library and may write to it) and listing the library's collections,
and seeding a topic follow with the arXiv papers of a collection. They run
in tasks, never in a request; what they find is stored on the link."""

from __future__ import annotations

import logging

from django.core.exceptions import ValidationError
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.follows.models import Follow
from accounts.follows.services import follow_create
from accounts.follows.types import MAX_EXAMPLES
from accounts.shared.secrets import SecretsUnavailable
from accounts.zotero.client import ZoteroBackoff, ZoteroError
from accounts.zotero.items import SKIPPED_TYPES, item_arxiv_id
from accounts.zotero.models import ZoteroLink
from accounts.zotero.sync import client_for
from harvest.models import Paper

logger = logging.getLogger(__name__)


def _may_write(access: dict, link: ZoteroLink) -> bool:
    """basics, "API key permissions": `access.user.write` for a user
    library, `access.groups.<id>.write` (or `all`) for a group."""
    if link.library_type == ZoteroLink.LibraryType.USER:
        return bool(access.get("user", {}).get("write"))
    groups = access.get("groups", {})
    return bool((groups.get(str(link.library_id)) or groups.get("all") or {}).get("write"))


def _fail(link: ZoteroLink, message: str) -> str:
    ZoteroLink.objects.filter(pk=link.pk).update(last_error=message, last_error_at=timezone.now())
    return message


def zotero_check_run(*, link_id: int) -> str:
    """Check the key's rights and store the library's collections (messages in the owner's language)."""
    link = ZoteroLink.objects.select_related("user").filter(pk=link_id).first()
    if link is None:
        return "no link"
    with translation.override(link.user.language):
        return _check(link)


def _check(link: ZoteroLink) -> str:
    try:
        client = client_for(link)
        access = client.key_access().get("access", {})
        if not _may_write(access, link):
            return _fail(link, _("This key may not write to that library: give it write access in Zotero."))
        collections = client.collections()
    except ZoteroBackoff as backoff:
        return _fail(link, _("Zotero asked to wait %(n)d seconds; try again then.") % {"n": backoff.seconds})
    except (ZoteroError, SecretsUnavailable) as error:
        logger.info("zotero link %d check failed: %s", link.pk, error)
        return _fail(link, _("Zotero refused the key or the library: %(error)s") % {"error": error})
    ZoteroLink.objects.filter(pk=link.pk).update(
        collections=[list(pair) for pair in collections], last_error="", last_error_at=None
    )
    return f"{len(collections)} collections"


def _collection_arxiv_ids(link: ZoteroLink, collection_key: str) -> list[str]:
    client = client_for(link)
    ids, start = [], 0
    while True:
        page = client.collection_items(collection_key, start=start)
        for item in page.items:
            if item["data"].get("itemType") not in SKIPPED_TYPES and (found := item_arxiv_id(item["data"])):
                ids.append(found)
        start += len(page.items)
        if not page.items or start >= page.total:
            return list(dict.fromkeys(ids))


def zotero_seed_run(*, link_id: int, collection_key: str) -> str:
    """A topic follow whose example papers are the collection's arXiv papers
    that the library holds (the first MAX_EXAMPLES); the outcome, in words,
    is stored on the link."""
    link = ZoteroLink.objects.select_related("user").filter(pk=link_id).first()
    if link is None:
        return "no link"
    with translation.override(link.user.language):
        return _seed(link, collection_key)


def _seed(link: ZoteroLink, collection_key: str) -> str:
    names = dict(tuple(pair) for pair in link.collections)
    try:
        ids = _collection_arxiv_ids(link, collection_key)
    except (ZoteroError, SecretsUnavailable) as error:
        message = _("The collection could not be read: %(error)s") % {"error": error}
        ZoteroLink.objects.filter(pk=link.pk).update(seed_result=message)
        return message
    held = set(Paper.objects.filter(arxiv_id__in=ids).values_list("arxiv_id", flat=True))
    examples = [arxiv_id for arxiv_id in ids if arxiv_id in held][:MAX_EXAMPLES]
    if not examples:
        message = _("No paper of that collection is an arXiv paper in the library: no follow was made.")
    else:
        name = _("Zotero: %(name)s") % {"name": names.get(collection_key, collection_key)}
        try:
            follow = follow_create(user=link.user, kind=Follow.Kind.TOPIC, value={"examples": examples}, name=name)
        except ValidationError as error:
            message = " ".join(error.messages)
        else:
            message = _("Made the topic follow “%(name)s” from %(n)d example papers (%(skipped)d not used).") % {
                "name": follow.name,
                "n": len(examples),
                "skipped": len(ids) - len(examples),
            }
    ZoteroLink.objects.filter(pk=link.pk).update(seed_result=message)
    return message
