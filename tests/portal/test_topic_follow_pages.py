"""A topic follow on the pages: from a paper's "papers like this one" link to
a preview with its counts, saved, listed and shown in the trail with why
(the real model, three real papers)."""

from __future__ import annotations

import pytest

from accounts.follows.models import Follow
from accounts.trail.matching import match_versions
from harvest.embeddings.services import embed_papers
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests.accounts.conftest import ago
from tests.accounts.follows.test_topic_follows import OTHERS, PRIVACY, collection_records

pytestmark = pytest.mark.django_db


def test_a_topic_follow_from_a_paper_page_to_the_trail(reader_client, reader):
    paper_upsert_many(records=collection_records(PRIVACY[:1]), now=ago(days=2))
    index_pending_papers()
    embed_papers()
    page = reader_client.get(f"/papers/{PRIVACY[0]}/").content.decode()
    link = f"/follows/new/?kind=topic&amp;examples={PRIVACY[0]}"
    assert f'href="{link}"' in page
    form = reader_client.get(link.replace("&amp;", "&"))
    html = form.content.decode()
    assert form.status_code == 200 and f">{PRIVACY[0]}</textarea>" in html and 'name="threshold" value="3.5"' in html
    # A preview in Chinese words, before saving: the one embedded paper on the topic.
    preview = reader_client.post(
        "/follows/new/", {"kind": "topic", "description": "差分隐私", "threshold": "2.5", "action": "preview"}
    )
    assert preview.status_code == 200 and 'data-preview="30"><strong>1</strong>' in preview.content.decode()
    bad = reader_client.post("/follows/new/", {"kind": "topic", "description": "差分隐私", "threshold": "99"})
    assert bad.status_code == 400 and 'data-field="threshold"' in bad.content.decode()
    saved = reader_client.post(
        "/follows/new/", {"kind": "topic", "examples": PRIVACY[0], "name": "", "include_revisions": "1"}
    )
    assert saved.status_code == 302
    follow = Follow.objects.get(user=reader, kind="topic")
    assert follow.value == {"examples": [PRIVACY[0]], "threshold": 3.5} and follow.name.startswith("像")
    assert PRIVACY[0] in reader_client.get("/follows/").content.decode()
    stored = paper_upsert_many(records=collection_records(PRIVACY[1:] + OTHERS), now=ago(minutes=5))
    index_pending_papers()
    embed_papers()
    match_versions(version_ids=stored.created_version_ids, topics=True)
    trail = reader_client.get("/trail/").content.decode()
    assert trail.count("接近你的示例论文") == 2 and all(arxiv_id not in trail for arxiv_id in OTHERS)
