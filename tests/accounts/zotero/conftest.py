"""A Zotero Web API stand-in per test, the site pointed at it, and a few
papers in the library."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.zotero.linking import zotero_check_run
from accounts.zotero.models import ZoteroLink
from accounts.zotero.services import zotero_collection_choose, zotero_link_set
from tests import factories as f
from tests.accounts.zotero.zotero_standin import ZoteroStandIn
from tests.replay_server import FIXTURES

IDS = ("2611.00101", "2611.00102", "2611.00103")


@pytest.fixture
def zotero(settings):
    standin = ZoteroStandIn().start()
    settings.ZOTERO_API_URL = standin.url
    yield standin
    standin.stop()


@pytest.fixture
def papers(db):
    f.store(
        *[
            f.record(arxiv_id, title=f"Private learning {n}", authors=["Cynthia Dwork", "Laurens van der Maaten"])
            for n, arxiv_id in enumerate(IDS)
        ],
        at=timezone.now() - timedelta(hours=1),
    )
    return [f.paper(arxiv_id) for arxiv_id in IDS]


def link_collection(user, zotero: ZoteroStandIn, name: str = "PaperTrail") -> ZoteroLink:
    """Link the stand-in's library through the services, as /me/ does, and choose a collection."""
    key = zotero.add_collection(name)
    link = zotero_link_set(user=user, library_type="user", library_id=zotero.library_id, api_key=zotero.api_key)
    assert zotero_check_run(link_id=link.pk).endswith("collections")
    zotero_collection_choose(user=user, collection_key=key)
    return ZoteroLink.objects.get(pk=link.pk)


def book_item() -> dict:
    """A real item that is no arXiv paper: pyzotero's test fixture of a book
    (tests/fixtures/zotero/item_doc.json), its editable data."""
    data = json.loads((FIXTURES / "zotero" / "item_doc.json").read_text(encoding="utf-8"))["data"]
    return {k: v for k, v in data.items() if k not in ("key", "version", "collections")}


def arxiv_item(arxiv_id: str, *, tags: list[str] = (), via: str = "url") -> dict:
    """A preprint as Zotero's arXiv.org translator saves it (url, extra, archiveID, DOI)."""
    item = {"itemType": "preprint", "title": f"Paper {arxiv_id}", "creators": [], "tags": [{"tag": t} for t in tags]}
    if via == "url":
        item["url"] = f"http://arxiv.org/abs/{arxiv_id}"
    elif via == "extra":
        item["extra"] = f"arXiv:{arxiv_id} [cs.LG]"
    elif via == "archiveID":
        item["archiveID"] = f"arXiv:{arxiv_id}"
    else:
        item["DOI"] = f"10.48550/arXiv.{arxiv_id}"
    return item
