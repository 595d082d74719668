"""A Zotero collection seeds a topic follow by its example papers."""

from __future__ import annotations

import pytest

from accounts.follows.models import Follow
from accounts.zotero.linking import zotero_check_run, zotero_seed_run
from accounts.zotero.models import ZoteroLink
from accounts.zotero.services import zotero_link_set
from tests.accounts.zotero.conftest import arxiv_item, book_item

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(user):
    """Messages the jobs store are in the owner's language: English here."""
    user.language = "en"
    user.save(update_fields=["language"])


def test_a_collection_of_arxiv_papers_becomes_a_topic_follow_by_example(user, zotero, papers):
    key = zotero.add_collection("Differential privacy")
    zotero.add_item(arxiv_item("2611.00101"), collection=key)
    zotero.add_item(arxiv_item("2611.00103", via="archiveID"), collection=key)
    zotero.add_item(arxiv_item("2611.09999"), collection=key)  # not in the library
    zotero.add_item(book_item(), collection=key)
    link = zotero_link_set(user=user, library_type="user", library_id=zotero.library_id, api_key=zotero.api_key)
    zotero_check_run(link_id=link.pk)
    message = zotero_seed_run(link_id=link.pk, collection_key=key)
    follow = Follow.objects.get(user=user)
    assert follow.kind == "topic" and follow.name == "Zotero: Differential privacy"
    assert follow.value["examples"] == ["2611.00101", "2611.00103"]
    assert "2 example papers (1 not used)" in message
    assert ZoteroLink.objects.get(pk=link.pk).seed_result == message


def test_a_collection_without_library_papers_makes_no_follow_and_says_so(user, zotero, papers):
    key = zotero.add_collection("Books")
    zotero.add_item(book_item(), collection=key)
    link = zotero_link_set(user=user, library_type="user", library_id=zotero.library_id, api_key=zotero.api_key)
    zotero_check_run(link_id=link.pk)
    assert "no follow was made" in zotero_seed_run(link_id=link.pk, collection_key=key)
    assert not Follow.objects.filter(user=user).exists()
