"""Topic follows (accounts.follows.topics) with the real model on a few real
papers of the evaluation collection: three on differential privacy, four on
other subjects. A topic described in English or Chinese, or by an example
paper, is matched once the harvest page is embedded, reaches the trail with
why, and its preview and back-fill find the same papers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from celery.signals import after_task_publish
from django.core.exceptions import ValidationError
from django.utils.translation import override

from accounts.follows.definition import FollowDefinition
from accounts.follows.selectors import follow_preview
from accounts.follows.services import follow_create
from accounts.follows.topics import DEFAULT_THRESHOLD, MAX_EXAMPLES
from accounts.models import User
from accounts.trail.matching import match_versions
from accounts.trail.models import DefinitionMatch
from accounts.trail.selectors import trail_page
from accounts.trail.tasks import match_topic_versions
from harvest.embeddings.services import embed_papers
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from harvest.tasks import embed_papers_task
from papertrail.celery import app
from tests.accounts.conftest import ago, record

pytestmark = pytest.mark.django_db
COLLECTION = Path(__file__).parents[2] / "fixtures" / "search_eval" / "papers.jsonl"
PRIVACY = ("2204.09167", "2306.06721", "2403.15999")  # differential privacy, judged by reading
OTHERS = ("2108.10257", "0704.0361", "2403.15527", "1906.00673")  # restoration, codes, conformal, flaky tests


def collection_records(ids):
    wanted = set(ids)
    with COLLECTION.open(encoding="utf-8") as lines:
        papers = [json.loads(line) for line in lines]
    return [
        record(p["arxiv_id"], title=p["title"], abstract=p["abstract"], categories=["cs.LG"])
        for p in papers
        if p["arxiv_id"] in wanted
    ]


def harvest(ids, *, at=None) -> list[int]:
    """A harvest page stored and indexed, its papers embedded: the version ids."""
    result = paper_upsert_many(records=collection_records(ids), now=at or ago(minutes=5))
    index_pending_papers()
    embed_papers()
    return result.created_version_ids


def reader(name="reader") -> User:
    return User.objects.create_user(username=name, password="x")


def trail_reasons(user) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for entry in trail_page(user=user, size=100).entries:
        for match in entry.matches:
            found.setdefault(entry.paper.arxiv_id, []).append(match.reason)
    return found


# --- the definition -----------------------------------------------------------------


def test_a_topic_is_a_description_or_examples_with_a_threshold_and_names_its_faults():
    harvest(PRIVACY[:1])
    described = FollowDefinition.parse("topic", {"description": "  differential   privacy "})
    assert described.value == {"description": "differential privacy", "threshold": DEFAULT_THRESHOLD}
    assert described.default_name() == "differential privacy"
    by_example = FollowDefinition.from_api("topic", {"examples": ["arXiv:2204.09167v2"], "threshold": 3})
    assert by_example.value == {"examples": ["2204.09167"], "threshold": 3.0}
    assert by_example.api_value() == {"examples": ["2204.09167"], "threshold": 3.0}
    with override("en"):
        assert by_example.default_name().startswith("Like “") and "2204.09167" not in by_example.default_name()
    with override("zh-hans"):
        assert by_example.default_name().startswith("像《")
    # The threshold is part of what is matched: two thresholds, two definitions.
    stricter = FollowDefinition.parse("topic", {"description": "differential privacy", "threshold": "4"})
    assert stricter.key != described.key
    faults = [
        ({"description": "x", "examples": ["2204.09167"]}, "description"),
        ({}, "description"),
        ({"examples": ["2611.99999"]}, "examples"),
        ({"examples": ["not an id"]}, "examples"),
        ({"examples": [f"2611.{n:05d}" for n in range(MAX_EXAMPLES + 1)]}, "examples"),
        ({"description": "x", "threshold": "nan"}, "threshold"),
        ({"description": "x", "threshold": 9}, "threshold"),
        ({"description": "x", "threshold": "strict"}, "threshold"),
        ({"description": "x" * 501}, "description"),
    ]
    for value, field in faults:
        with pytest.raises(ValidationError) as caught:
            FollowDefinition.parse("topic", value)
        assert list(caught.value.message_dict) == [field], value
    with pytest.raises(ValidationError) as caught:
        FollowDefinition.from_api("topic", {"description": "x", "colour": "red"})
    assert list(caught.value.message_dict) == ["value.colour"]


# --- matching ---------------------------------------------------------------------


def test_a_topic_in_english_or_chinese_matches_the_papers_on_it_once_they_are_embedded():
    english, chinese = reader("en"), reader("zh")
    follow_create(user=english, kind="topic", value={"description": "differential privacy"}, name=None)
    follow_create(user=chinese, kind="topic", value={"description": "差分隐私"}, name=None)
    result = paper_upsert_many(records=collection_records(PRIVACY + OTHERS), now=ago(minutes=5))
    index_pending_papers()
    # The harvest's own matching leaves topics to the pass after embedding.
    assert match_versions(version_ids=result.created_version_ids).hits == 0
    embed_papers()
    matched = match_versions(version_ids=result.created_version_ids, topics=True)
    assert matched.hits == DefinitionMatch.objects.count() > 0
    for user, topic in ((english, "differential privacy"), (chinese, "差分隐私")):
        reasons = trail_reasons(user)
        assert set(reasons) <= set(PRIVACY) and len(reasons) >= 2, (topic, reasons)
        for found in reasons.values():
            assert found[0]["topic"] == topic and found[0]["score"] >= DEFAULT_THRESHOLD
    assert set(trail_reasons(english)) == set(PRIVACY)


def test_an_example_paper_brings_its_neighbours_with_the_example_as_why_but_not_itself():
    harvest(PRIVACY[:1])
    user = reader()
    follow_create(user=user, kind="topic", value={"examples": [PRIVACY[0]]}, name=None)
    versions = paper_upsert_many(records=collection_records(PRIVACY[1:] + OTHERS), now=ago(minutes=1))
    index_pending_papers()
    embed_papers()
    match_versions(version_ids=versions.created_version_ids, topics=True)
    reasons = trail_reasons(user)
    assert set(reasons) == set(PRIVACY[1:])
    assert {found[0]["example"] for found in reasons.values()} == {PRIVACY[0]}
    assert all(found[0]["example_title"] for found in reasons.values())


def test_the_embedding_task_queues_the_topic_pass_for_its_page(settings, tmp_path, django_capture_on_commit_callbacks):
    settings.VAR_DIR = tmp_path
    user = reader()
    follow_create(user=user, kind="topic", value={"description": "differential privacy"}, name=None)
    result = paper_upsert_many(records=collection_records(PRIVACY[:2] + OTHERS[:1]), now=ago(minutes=5))
    index_pending_papers()
    sent = []

    def published(sender=None, headers=None, body=None, **kwargs) -> None:
        sent.append({"task": headers["task"], "args": list(body[0])})

    after_task_publish.connect(published, weak=False)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            embed_papers_task(result.created_version_ids)
        # The topic pass, and the scoring of the page (its embedding half needs the vectors too).
        assert sent == [
            {"task": "accounts.match_topic_versions", "args": [result.created_version_ids]},
            {"task": "accounts.score_recommendations", "args": [result.created_version_ids]},
        ]
        assert match_topic_versions(*sent[0]["args"]) == "2 topic matches"
    finally:
        after_task_publish.disconnect(published)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge("default")
    assert set(DefinitionMatch.objects.values_list("paper__arxiv_id", flat=True)) == set(PRIVACY[:2])


# --- the window: preview and back-fill -----------------------------------------------


def test_the_preview_counts_what_the_threshold_keeps_and_a_new_follow_brings_it_at_once():
    user = reader()
    paper_upsert_many(records=collection_records(PRIVACY + OTHERS), now=ago(days=3))
    index_pending_papers()
    embed_papers()
    loose = follow_preview(user=user, kind="topic", value={"description": "differential privacy"})
    strict = follow_preview(user=user, kind="topic", value={"description": "differential privacy", "threshold": 6})
    assert loose.last_7_days == loose.last_30_days == 3
    assert {paper.arxiv_id for paper in loose.recent} == set(PRIVACY)
    assert strict.last_30_days < loose.last_30_days
    follow_create(user=user, kind="topic", value={"description": "differential privacy"}, name=None)
    assert {entry.paper.arxiv_id for entry in trail_page(user=user).entries} == set(PRIVACY)
