"""No matched event is lost or shown twice while readers read, mark and
change their follows as a real worker matches harvests."""

from __future__ import annotations

import pytest
from celery.result import AsyncResult
from celery.signals import after_task_publish

from accounts.follows.services import follow_create, follow_update
from accounts.models import User
from accounts.trail.selectors import trail_page, trail_unread_total
from accounts.trail.services import trail_mark_read
from harvest.models import HarvestRun, Paper
from harvest.services import paper_upsert_many
from harvest.signals import versions_created
from tests.accounts.conftest import ago, cards, record
from tests.celery_worker import running_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]

ROUNDS = 8


@pytest.fixture
def worker(subprocess_env):
    """Two worker processes, so that two pages' matching tasks run side by side."""
    with running_worker(
        subprocess_env, queues="default", hostname="test-trail", pool="prefork", concurrency=2
    ) as process:
        yield process


def test_every_matched_event_reaches_each_trail_exactly_once_under_concurrent_reads_marks_and_edits(worker):
    marker, editor, reader = (User.objects.create_user(username=name, password="x") for name in ("m", "e", "r"))
    for user in (marker, editor, reader):
        follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="cs.LG")
    edited = follow_create(user=editor, kind="author", value={"author": "Ada Lovelace"}, name="Ada")
    matching_tasks: list[str] = []

    def published(sender=None, headers=None, **kwargs) -> None:
        if headers["task"] == "accounts.match_new_versions":
            matching_tasks.append(headers["id"])

    after_task_publish.connect(published, weak=False)
    try:
        for n in range(ROUNDS):
            # Two new papers, and a revision of the first paper of the round before.
            records = [record(f"2611.{n:03d}01"), record(f"2611.{n:03d}02", authors=["Ada Lovelace"])]
            if n:
                records.append(record(f"2611.{n - 1:03d}01", versions=2 + (n % 2)))
            stored = paper_upsert_many(records=records, now=ago(minutes=ROUNDS - n))
            # As a harvest run does once its page committed: the matching task is queued.
            versions_created.send(sender=HarvestRun, version_ids=stored.created_version_ids)
            # While the worker matches: every kind of read, a
            # mark of everything so far, and an edit that re-matches a follow.
            for user in (marker, editor, reader):
                trail_page(user=user)
                trail_unread_total(user=user)
            trail_mark_read(user=marker)
            follow_update(follow=edited, include_revisions=n % 2 == 0)
    finally:
        after_task_publish.disconnect(published)
    assert len(matching_tasks) == ROUNDS

    for task_id in matching_tasks:
        AsyncResult(task_id).get(timeout=120)

    latest = dict(Paper.objects.values_list("arxiv_id", "latest_version"))
    arxiv_ids = dict(Paper.objects.values_list("id", "arxiv_id"))
    for user in (marker, editor, reader):
        trail = cards(user)
        # Every paper of cs.LG is on a card, at its newest version: none lost, none twice.
        assert len(trail) == len({card.paper_id for card in trail}), user.username
        assert {arxiv_ids[card.paper_id]: card.version_number for card in trail} == latest, user.username
        # Exactly once: one reason per (card, follow).
        for card in trail:
            follows = [match.follow_id for match in card.reasons]
            assert len(follows) == len(set(follows))
        # What the pages show is the same: every card once, in the trail's order.
        shown = [entry.paper.arxiv_id for entry in trail_page(user=user, size=100).entries]
        assert sorted(shown) == sorted(latest) and len(shown) == len(set(shown)), user.username
    # The marker read everything up to the last round; the revisions after it
    # reopened their cards, and nothing else is unread.
    assert trail_unread_total(user=reader) == len(latest)
