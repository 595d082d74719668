"""The trail's card rules, marks, pages and counts; follow services'
validation, back-fill and preview; the task queued after a harvest commits."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from celery.signals import after_task_publish
from django.core.exceptions import ValidationError
from django.db import connection

from accounts.follows import selectors as follow_selectors
from accounts.follows.models import Follow
from accounts.follows.selectors import author_candidates, follow_preview
from accounts.follows.services import follow_create, follow_delete, follow_update
from accounts.trail.selectors import trail_page, trail_unread_counts
from accounts.trail.services import trail_dismiss, trail_mark_read, trail_undismiss
from harvest.models import Version
from harvest.signals import versions_created
from papertrail.celery import app
from tests.accounts.conftest import ago, card_of, cards, harvest, record

pytestmark = pytest.mark.django_db


def follow(user, kind, value, **options) -> Follow:
    return follow_create(user=user, kind=kind, value=value, name=f"{kind} follow", **options)


def test_a_read_card_comes_back_only_with_a_new_version(user):
    follow(user, "category", {"code": "cs.LG"})
    harvest(record("2611.00001"), at=ago(days=2))
    (item,) = cards(user)
    assert trail_mark_read(user=user, item_ids=[item.paper_id]) == 1
    # Matching again (a new follow's back-fill) keeps it read.
    follow(user, "author", {"author": "Ada Lovelace"})
    item = card_of(user, "2611.00001")
    assert not item.unread and trail_unread_counts(user=user).total == 0
    assert len(trail_page(user=user).entries[0].matches) == 2
    harvest(record("2611.00001", versions=2), at=ago(hours=1))
    item = card_of(user, "2611.00001")
    assert item.unread and item.kind == "revision" and item.version_number == 2
    counts = trail_unread_counts(user=user)
    assert counts.total == 1 and sorted(counts.by_follow.values()) == [1, 1]


def test_a_dismissed_paper_stays_out_with_its_revisions_until_undone(user):
    follow(user, "category", {"code": "cs.LG"})
    harvest(record("2611.00001"), record("2611.00002"), at=ago(days=2))
    item = card_of(user, "2611.00001")
    assert trail_dismiss(user=user, item_id=item.paper_id)
    harvest(record("2611.00001", versions=2), at=ago(hours=1))
    assert [e.paper.arxiv_id for e in trail_page(user=user).entries] == ["2611.00002"]
    assert trail_unread_counts(user=user).total == 1
    assert trail_undismiss(user=user, item_id=item.paper_id)
    assert trail_unread_counts(user=user).total == 2


def test_pages_are_keyset_and_stable_while_events_arrive(user):
    lg = follow(user, "category", {"code": "cs.LG"})
    for day in range(5, 0, -1):
        harvest(record(f"2611.0000{day}"), at=ago(days=day))
    first = trail_page(user=user, size=2)
    assert [e.paper.arxiv_id for e in first.entries] == ["2611.00001", "2611.00002"]
    harvest(record("2611.00009"), at=ago(minutes=1))  # a new card on top
    second = trail_page(user=user, size=2, cursor=first.next_cursor)
    assert [e.paper.arxiv_id for e in second.entries] == ["2611.00003", "2611.00004"]
    by_follow = trail_page(user=user, follow_id=lg.pk, size=2, cursor=first.next_cursor)
    assert [e.paper.arxiv_id for e in by_follow.entries] == ["2611.00003", "2611.00004"]
    trail_mark_read(user=user, up_to=ago(days=2, minutes=30))
    assert [e.paper.arxiv_id for e in trail_page(user=user, unread_only=True).entries] == [
        "2611.00009",
        "2611.00001",
        "2611.00002",
    ]
    assert trail_page(user=user, follow_id=lg.pk, unread_only=True, size=5).next_cursor is None
    assert trail_page(user=user, kind="revision").entries == []


def test_validation_errors_name_the_field(user, settings):
    cases = [
        ("category", {"code": "cs.XX"}, "name", "code"),
        ("author", {"author": " "}, "name", "author"),
        ("query", {"q": "the of"}, "name", "q"),
        ("query", {"q": "-cats"}, "name", "q"),
        ("filters", {"sort": "updated"}, "name", "sort"),
        ("filters", {"ai": "maybe"}, "name", "ai"),
        ("category", {"code": "cs.CL"}, "  ", "name"),
    ]
    for kind, value, name, field in cases:
        with pytest.raises(ValidationError) as error:
            follow_create(user=user, kind=kind, value=value, name=name)
        assert list(error.value.message_dict) == [field], (kind, value)
    settings.PAPERTRAIL_MAX_FOLLOWS = 2
    follow(user, "category", {"code": "cs.CL"})
    follow(user, "category", {"code": "cs.LG"})
    with pytest.raises(ValidationError) as error:
        follow(user, "category", {"code": "cs.AI"})
    assert list(error.value.message_dict) == ["follows"]


def test_a_new_follow_backfills_seven_days_and_an_edit_rematches(user):
    harvest(record("2611.00001", categories=["cs.CL"]), at=ago(days=10))
    harvest(record("2611.00002", categories=["cs.CL"]), record("2611.00003", categories=["cs.RO"]), at=ago(days=3))
    f = follow(user, "category", {"code": "cs.CL"})
    assert [e.paper.arxiv_id for e in trail_page(user=user).entries] == ["2611.00002"]
    follow_update(follow=f, value={"code": "cs.RO"})
    assert [e.paper.arxiv_id for e in trail_page(user=user).entries] == ["2611.00003"]
    follow_delete(follow=f)
    assert not cards(user)


def test_preview_counts_seven_and_thirty_days_and_lists_recent_papers(user):
    harvest(record("2611.00001", abstract="Diffusion models.", first_submitted=ago(days=20)), at=ago(days=20))
    harvest(record("2611.00002", abstract="Diffusion policies.", first_submitted=ago(days=2)), at=ago(days=2))
    harvest(record("2611.00003", abstract="Something else.", first_submitted=ago(days=1)), at=ago(days=1))
    # A back-fill's paper of 2016, stored an hour ago: not one of the week's papers.
    march = datetime(2016, 3, 9, 12, tzinfo=UTC)
    harvest(record("1603.00001", abstract="Diffusion maps.", first_submitted=march), at=ago(hours=1))
    preview = follow_preview(user=user, kind="query", value={"q": "diffusion"})
    assert (preview.last_7_days, preview.last_30_days) == (1, 2)
    assert [p.arxiv_id for p in preview.recent] == ["2611.00002", "2611.00001"]
    # Each listed with arXiv's date of its version, not the time it was stored.
    assert [at.date() for at in preview.recent_at] == [ago(days=2).date(), ago(days=20).date()]
    assert not Follow.objects.exists()


def test_preview_counts_stop_at_the_cap_and_say_more_than(user, monkeypatch):
    """The counts are bounded (PREVIEW_COUNT_CAP; three here): past the cap the
    preview says "more than", and a paper counts once however many versions it
    has in the window; a week under the cap stays exact while the month is over it."""
    monkeypatch.setattr(follow_selectors, "PREVIEW_COUNT_CAP", 3)
    month = ago(days=20)
    harvest(*(record(f"2611.0001{n}", categories=["cs.CL"], first_submitted=month) for n in range(3)), at=month)
    harvest(record("2611.00010", categories=["cs.CL"], versions=2, first_submitted=ago(days=9)), at=ago(days=2))
    harvest(record("2611.00020", categories=["cs.CL"], first_submitted=ago(days=1)), at=ago(days=1))
    preview = follow_preview(user=user, kind="category", value={"code": "cs.CL"})
    assert (preview.last_7_days, preview.last_7_days_capped) == (2, False)
    assert (preview.last_30_days, preview.last_30_days_capped) == (3, True)
    # The walk stops at the cap's first paper past it: four papers, newest first.
    assert [p.arxiv_id for p in preview.recent][:2] == ["2611.00020", "2611.00010"] and len(preview.recent) == 4
    harvest(*(record(f"2611.0003{n}", categories=["cs.CL"]) for n in range(2)), at=ago(hours=3))
    week = follow_preview(user=user, kind="category", value={"code": "cs.CL"})
    assert (week.last_7_days, week.last_7_days_capped, week.last_30_days_capped) == (3, True, True)
    harvest(
        *(record(f"2611.0004{n}", categories=["cs.RO"], first_submitted=ago(days=9)) for n in range(3)), at=ago(days=9)
    )
    exact = follow_preview(user=user, kind="category", value={"code": "cs.RO"})
    assert (exact.last_7_days, exact.last_30_days, exact.last_30_days_capped) == (0, 3, False)


def test_a_preview_reads_further_when_the_newest_versions_are_one_papers(user, monkeypatch):
    """The first read of the window takes 1.2 versions a paper; a paper revised
    three times in the month takes more, and the walk reads again, further."""
    monkeypatch.setattr(follow_selectors, "PREVIEW_COUNT_CAP", 2)
    harvest(record("2611.00003", categories=["cs.CL"]), at=ago(days=6))
    harvest(record("2611.00002", categories=["cs.CL"]), at=ago(days=5))
    for version, days in ((1, 4), (2, 3), (3, 2)):
        harvest(record("2611.00001", categories=["cs.CL"], versions=version), at=ago(days=days))
    preview = follow_preview(user=user, kind="category", value={"code": "cs.CL"})
    assert (preview.last_7_days, preview.last_7_days_capped) == (2, True)
    assert [p.arxiv_id for p in preview.recent] == ["2611.00001", "2611.00002", "2611.00003"]


def test_category_preview_counts_cross_lists_and_revisions_as_asked(user):
    harvest(record("2611.00001", categories=["cs.CL"]), at=ago(days=40))
    harvest(record("2611.00001", categories=["cs.CL"], versions=2), at=ago(days=3))
    harvest(record("2611.00002", categories=["cs.LG", "cs.CL"]), at=ago(days=10))
    harvest(record("2611.00003", categories=["cs.RO"]), record("2611.00004", categories=["math.CO"]), at=ago(days=1))
    preview = follow_preview(user=user, kind="category", value={"code": "cs.CL"})
    assert (preview.last_7_days, preview.last_30_days) == (1, 2)
    assert [p.arxiv_id for p in preview.recent] == ["2611.00001", "2611.00002"]
    primary = follow_preview(user=user, kind="category", value={"code": "cs.CL"}, include_cross_lists=False)
    assert [p.arxiv_id for p in primary.recent] == ["2611.00001"]
    arrivals = follow_preview(user=user, kind="category", value={"code": "cs"}, include_revisions=False)
    assert [p.arxiv_id for p in arrivals.recent] == ["2611.00003", "2611.00002"]


def test_author_candidates_share_surname_and_initial(user):
    harvest(
        record("2611.00001", authors=["Yann LeCun"], categories=["cs.LG"]),
        record("2611.00002", authors=["Y. LeCun"], categories=["cs.CV"]),
        record("2611.00003", authors=["Yann Lécun"], categories=["cs.LG"]),
        record("2611.00004", authors=["Anna LeCun", "Yann Smith"]),
    )
    found = {c.normalised: c for c in author_candidates(name="Yann LeCun")}
    assert set(found) == {"yann lecun", "y lecun"}
    assert found["yann lecun"].paper_count == 2
    assert found["yann lecun"].top_categories == [("cs.LG", 2)]
    assert {p.arxiv_id for p in found["y lecun"].recent_papers} == {"2611.00002"}


def test_the_match_task_is_queued_after_the_harvest_commits(django_capture_on_commit_callbacks):
    sent: list[dict] = []

    def published(sender=None, headers=None, body=None, **kwargs) -> None:
        sent.append({"task": headers["task"], "args": list(body[0])})

    after_task_publish.connect(published, weak=False)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            versions_created.send(sender=None, version_ids=[7, 8])
            assert sent == []
        assert {"task": "accounts.match_new_versions", "args": [[7, 8]]} in sent
    finally:
        after_task_publish.disconnect(published)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge("default")


def test_the_preview_window_can_be_read_from_the_covering_version_index_alone(user):
    """The window's query asks only for columns the index holds, so that
    PostgreSQL can answer it by an index-only scan: the 30-day window's ~52,000
    versions at one million papers without a heap visit each (bench/SCALE.md).
    The planner's choice itself depends on table sizes a test cannot fake
    honestly, so the test checks what makes the choice possible."""
    harvest(record("2611.00001", categories=["cs.CL"]), at=ago(days=3))
    events = Version.objects.filter(discovered_at__gte=ago(days=30)).values_list("paper_id", "number", "discovered_at")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'version_discovered_cover_idx'")
        (definition,) = cursor.fetchone()
    assert "(discovered_at) INCLUDE (paper_id, number)" in definition
    assert set(events.query.values_select) == {"paper_id", "number", "discovered_at"}
    assert list(events) == [(Version.objects.get().paper_id, 1, Version.objects.get().discovered_at)]


@pytest.mark.parametrize("ratio", [0, 10**9], ids=["window's papers checked", "library's matches read"])
def test_a_query_preview_counts_the_same_whichever_side_it_starts_from(user, monkeypatch, ratio):
    monkeypatch.setattr("accounts.follows.window.WINDOW_CHECK_RATIO", ratio)
    harvest(record("2611.00001", abstract="Diffusion models."), at=ago(days=40))
    harvest(record("2611.00001", abstract="Diffusion models.", versions=2), at=ago(days=3))
    harvest(record("2611.00002", abstract="Diffusion policies."), at=ago(days=12))
    harvest(record("2611.00003", abstract="Diffusion, long ago."), at=ago(days=45))
    harvest(record("2611.00004", abstract="Something else."), at=ago(days=1))

    preview = follow_preview(user=user, kind="query", value={"q": "diffusion"})
    assert (preview.last_7_days, preview.last_30_days) == (1, 2)
    assert [p.arxiv_id for p in preview.recent] == ["2611.00001", "2611.00002"]
    arrivals = follow_preview(user=user, kind="query", value={"q": "diffusion"}, include_revisions=False)
    assert [p.arxiv_id for p in arrivals.recent] == ["2611.00002"]
