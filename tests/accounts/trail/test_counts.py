"""The unread counts PostgreSQL aggregates (accounts.trail.counts) are the
composed cards' own, whatever the reader's follows, rules and marks."""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.follows.services import author_variant_reject, exclusion_create, follow_create, follow_update
from accounts.records.services import record_save
from accounts.trail.readers import Reader
from accounts.trail.selectors import composed_unread_counts, trail_unread_counts
from accounts.trail.services import trail_dismiss, trail_mark_read, trail_undismiss
from harvest.models import Paper
from tests.accounts.conftest import ago, card_of, harvest, record

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the counts' statement is PostgreSQL's"),
]


def counts_agree(user) -> tuple[int, dict[int, int]]:
    composed = composed_unread_counts(Reader.of(user.pk))
    aggregated = trail_unread_counts(user=user)
    assert (aggregated.total, aggregated.by_follow) == (composed.total, composed.by_follow)
    return composed.total, composed.by_follow


def test_the_aggregated_counts_are_the_composed_cards_through_every_rule_and_mark(user):
    lg = follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="lg", include_cross_lists=False)
    wang = follow_create(user=user, kind="author", value={"author": "Wei Wang"}, name="wang")
    follow_create(user=user, kind="query", value={"q": "attention"}, name="attention", include_revisions=False)
    harvest(
        record("2611.00001", title="Attention everywhere", authors=["Wei Wang"]),
        record("2611.00002", categories=["cs.CL", "cs.LG"]),  # a cross-list: not for lg
        record("2611.00003", authors=["Wei Wang"], categories=["cs.RO"]),
        record("2611.00004", abstract="A benchmark of attention."),
        record("2611.00005"),
        at=ago(days=3),
    )
    assert counts_agree(user)[0] == 4
    # Read one by one, up to a place, dismissed, dismissed and undone.
    trail_mark_read(user=user, item_ids=[card_of(user, arxiv_id).paper_id for arxiv_id in ("2611.00001", "2611.00005")])
    assert trail_dismiss(user=user, item_id=card_of(user, "2611.00005").paper_id)
    counts_agree(user)
    # Revisions: reopen the read card; one arrives while another is dismissed, then undone.
    harvest(record("2611.00001", versions=2, title="Attention everywhere", authors=["Wei Wang"]), at=ago(days=2))
    harvest(record("2611.00005", versions=2), at=ago(days=2))
    assert trail_undismiss(user=user, item_id=card_of(user, "2611.00005").paper_id)
    # The revision came while it was dismissed: undone, the card stays read at v1.
    assert not card_of(user, "2611.00005").unread
    counts_agree(user)
    # "Read up to here", then something newer and a follow edited (its back-fill).
    trail_mark_read(user=user, up_to=ago(days=2, hours=12))
    harvest(record("2611.00006", authors=["Wei Wang"]), at=ago(days=1))
    follow_update(follow=lg, include_cross_lists=True)
    counts_agree(user)
    # "Not this person", an exclusion, a saved paper's revision.
    author_variant_reject(user=user, follow_id=wang.pk, paper_id=Paper.objects.get(arxiv_id="2611.00003").pk)
    exclusion_create(user=user, kind="query", value="benchmark")
    record_save(user=user, paper=Paper.objects.get(arxiv_id="2611.00002"))
    harvest(record("2611.00002", versions=2, categories=["cs.CL", "cs.LG"]), at=ago(hours=5))
    total, by_follow = counts_agree(user)
    assert total > 0 and by_follow
    trail_mark_read(user=user)
    assert counts_agree(user) == (0, {})


def test_a_stored_count_is_served_until_a_match_a_mark_or_a_follow_changes_it(user, django_assert_num_queries):
    follow_create(user=user, kind="category", value={"code": "cs.LG"}, name="lg")
    harvest(record("2611.00001"), record("2611.00002"), at=ago(days=1))
    assert trail_unread_counts(user=user).total == 2
    with django_assert_num_queries(1):  # the stamp alone
        assert trail_unread_counts(user=user).total == 2
    trail_mark_read(user=user, item_ids=[card_of(user, "2611.00001").paper_id])
    assert trail_unread_counts(user=user).total == 1
    harvest(record("2611.00003"), at=ago(hours=1))
    assert trail_unread_counts(user=user).total == 2
    follow_create(user=user, kind="category", value={"code": "cs.CL"}, name="cl")
    harvest(record("2611.00004", categories=["cs.CL"]), at=ago(minutes=30))
    assert trail_unread_counts(user=user).total == 3
    assert trail_dismiss(user=user, item_id=card_of(user, "2611.00004").paper_id)
    assert trail_unread_counts(user=user).total == 2
