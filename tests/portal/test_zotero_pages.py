"""The Zotero link on /me/ and under /api/v1/me/zotero/: the owner's only
(anyone else gets 404 or their own, nothing of the owner's), the key never
in any answer, failures shown in words. The stand-in of Zotero's API is the
one the sync tests use; here only the check of a key reaches it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import api_token_create
from accounts.zotero.linking import zotero_check_run
from accounts.zotero.models import ZoteroLink, ZoteroReport
from accounts.zotero.services import zotero_link_set
from tests.accounts.zotero.conftest import zotero  # noqa: F401 - the stand-in fixture

pytestmark = pytest.mark.django_db
ZOTERO_ROUTES = ["api:zotero", "api:zotero_collections", "api:zotero_sync", "api:zotero_seed"]


@pytest.fixture
def owner(zotero):  # noqa: F811
    user = User.objects.create_user("owner", password="x")
    key = zotero.add_collection("Secret collection")
    link = zotero_link_set(user=user, library_type="user", library_id=zotero.library_id, api_key=zotero.api_key)
    zotero_check_run(link_id=link.pk)
    ZoteroLink.objects.filter(pk=link.pk).update(collection_key=key, collection_name="Secret collection")
    ZoteroReport.objects.create(link=link, kind="not_arxiv", item_key="X42A7DEE", title="Secret book")
    return user


def api_as(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token_create(user=user, name='t')[1]}")
    return client


def test_the_owner_reads_the_link_without_the_key(owner, zotero):  # noqa: F811
    client = api_as(owner)
    body = client.get(reverse("api:zotero")).json()
    assert body["key_stored"] is True and body["collection_name"] == "Secret collection"
    assert body["collections"][0]["name"] == "Secret collection"
    assert body["reports"][0]["kind"] == "not_arxiv"
    assert "api_key" not in body
    for name in ZOTERO_ROUTES[:2]:
        assert zotero.api_key not in client.get(reverse(name)).content.decode()
    page = Client()
    page.force_login(owner)
    html = page.get(reverse("accounts:me")).content.decode()
    assert "Secret collection" in html and "Secret book" in html and zotero.api_key not in html


def test_anyone_else_gets_404_and_nothing_of_the_owners(owner, zotero):  # noqa: F811
    other = User.objects.create_user("other", password="x")
    before = list(ZoteroLink.objects.filter(user=owner).values())
    client = api_as(other)
    for name in ZOTERO_ROUTES:
        url = reverse(name)
        for response in (
            client.get(url),
            client.post(url, {"collection_key": "ABCD2345"}, format="json"),
            client.patch(url, {"collection_key": "ABCD2345"}, format="json"),
            client.delete(url),
        ):
            text = response.content.decode()
            assert response.status_code in (404, 405), (name, response.status_code)
            assert "Secret" not in text and zotero.api_key not in text
    session = Client()
    session.force_login(other)
    assert "Secret" not in session.get(reverse("accounts:me")).content.decode()
    for name in ("zotero_collection", "zotero_sync", "zotero_seed", "zotero_unlink"):
        session.post(reverse(f"accounts:{name}"), {"collection_key": "ABCD2345"})
    assert list(ZoteroLink.objects.filter(user=owner).values()) == before
    assert APIClient().get(reverse("api:zotero")).status_code in (401, 403)


def test_linking_through_the_api_never_echoes_the_key_and_names_a_bad_parameter(zotero):  # noqa: F811
    user = User.objects.create_user("linker", password="x")
    client = api_as(user)
    bad = client.put(reverse("api:zotero"), {"library_id": "abc", "api_key": "k"}, format="json")
    assert bad.status_code == 400 and "library_id" in bad.json()["errors"]
    response = client.put(
        reverse("api:zotero"), {"library_id": str(zotero.library_id), "api_key": zotero.api_key}, format="json"
    )
    assert response.status_code == 200 and zotero.api_key not in response.content.decode()
    stored = ZoteroLink.objects.get(user=user)
    assert zotero.api_key not in stored.api_key
    wrong = client.patch(reverse("api:zotero"), {"collection_key": "NOPE2345"}, format="json")
    assert wrong.status_code == 400 and "collection_key" in wrong.json()["errors"]
    assert client.delete(reverse("api:zotero")).status_code == 204
    assert not ZoteroLink.objects.filter(user=user).exists()


def test_a_failed_sync_is_shown_in_words_on_me(owner):
    ZoteroLink.objects.filter(user=owner).update(last_error="Code: 403 Response: Forbidden")
    page = Client()
    page.force_login(owner)
    html = page.get(reverse("accounts:me")).content.decode()
    assert "上次同步失败：" in html and "Code: 403 Response: Forbidden" in html
    assert "在这里取消保存的论文会移入 Zotero 的回收站" in html


def test_the_link_form_on_me_links_and_comes_back_to_the_section(zotero):  # noqa: F811
    user = User.objects.create_user("former", password="x")
    page = Client()
    page.force_login(user)
    response = page.post(
        reverse("accounts:zotero_link"),
        {"library_type": "user", "library_id": str(zotero.library_id), "api_key": zotero.api_key},
    )
    assert response.status_code == 302 and response["Location"].endswith("/me/#zotero")
    assert ZoteroLink.objects.filter(user=user).exists()
    refused = page.post(reverse("accounts:zotero_link"), {"library_type": "user", "library_id": "x", "api_key": "k"})
    assert refused.status_code == 302
    assert "请填写文库的编号" in page.get(reverse("accounts:me")).content.decode()


def test_seeding_a_topic_follow_through_the_api_names_a_bad_collection_and_queues_a_good_one(owner):
    client = api_as(owner)
    bad = client.post(reverse("api:zotero_seed"), {"collection_key": "NOPE2345"}, format="json")
    assert bad.status_code == 400 and list(bad.json()["errors"]) == ["collection_key"]
    key = ZoteroLink.objects.get(user=owner).collection_key
    queued = client.post(reverse("api:zotero_seed"), {"collection_key": key}, format="json")
    assert queued.status_code == 202 and queued.json()["seed_result"]
    assert ZoteroLink.objects.get(user=owner).seed_result == queued.json()["seed_result"]
