"""The trail's two writers (COPY and set-based SQL on PostgreSQL, the ORM
elsewhere) leave identical trails and report identical counts for the same
days of harvests, follows and marks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.follows.services import exclusion_create, follow_create
from accounts.models import User
from accounts.trail import copy as trail_copy
from accounts.trail import matching as trail_matching
from accounts.trail import writers as trail
from accounts.trail.models import TrailItem, TrailMatch
from accounts.trail.services import trail_dismiss, trail_mark_read
from harvest.models import Author, Paper
from tests.accounts.conftest import harvest, record

pytestmark = pytest.mark.django_db


def story(base) -> list[tuple]:
    """Two readers over three harvests, with marks between them, so that every
    card rule runs: new cards, reasons joining unread cards, revisions moving
    unread cards, reopening read ones, reasons added to read cards that stay
    read, dismissed cards taking nothing; users cross the writers' chunks."""
    ada = User.objects.create_user(username="ada", password="x")
    bob = User.objects.create_user(username="bob", password="x")

    def at(days: float):
        return base - timedelta(days=days)

    def follow(user, kind, value, name, **options):
        return follow_create(user=user, kind=kind, value=value, name=name, now=base, **options)

    results = []
    follow(ada, "category", {"code": "cs.LG"}, "lg")
    follow(ada, "query", {"q": "diffusion"}, "diffusion")
    follow(bob, "category", {"code": "cs"}, "cs", include_cross_lists=False)
    follow(bob, "category", {"code": "cs.CL"}, "cl", include_revisions=False)
    exclusion_create(user=bob, kind="category", value="cs.CR")
    day_one = [
        record("2611.00001", abstract="Diffusion models.", categories=["cs.LG"]),
        record("2611.00002", categories=["cs.CL", "cs.LG"]),
        record("2611.00003", categories=["cs.LG", "cs.CR"], abstract="Diffusion at scale."),
        record("2611.00004", categories=["cs.CL"]),
        record("2611.00005", categories=["stat.ML", "cs.LG"], authors=["Grace Hopper"]),
    ]
    results.append(harvest(*day_one, at=at(3)))
    ada_cards = {item.paper.arxiv_id: item.pk for item in TrailItem.objects.filter(user=ada).select_related("paper")}
    trail_mark_read(user=ada, item_ids=[ada_cards["2611.00001"], ada_cards["2611.00002"]])
    trail_dismiss(user=ada, item_id=ada_cards["2611.00003"])
    bob_cards = {item.paper.arxiv_id: item.pk for item in TrailItem.objects.filter(user=bob).select_related("paper")}
    trail_mark_read(user=bob, item_ids=[bob_cards["2611.00004"]])
    # A new follow's back-fill: a reason joins an unread card and a read one (which stays read).
    follow(ada, "author", {"author": "Grace Hopper"}, "hopper")
    follow(ada, "category", {"code": "cs.CL"}, "ada cl")
    results.append(
        harvest(
            record("2611.00001", versions=2, abstract="Diffusion models.", categories=["cs.LG"]),
            record("2611.00003", versions=2, categories=["cs.LG", "cs.CR"], abstract="Diffusion at scale."),
            record("2611.00004", versions=2, categories=["cs.CL"]),
            record("2611.00005", versions=2, categories=["stat.ML", "cs.LG"], authors=["Grace Hopper"]),
            record("2611.00006", categories=["cs.RO"], abstract="Diffusion policies."),
            at=at(1),
        )
    )
    results.append(harvest(record("2611.00006", versions=3, categories=["cs.RO"]), at=at(0.5)))
    return results


def snapshot() -> dict:
    return {
        "items": sorted(
            TrailItem.objects.values_list(
                "user__username", "paper__arxiv_id", "latest_version__number", "latest_version_number",
                "latest_event_at", "kind", "unread", "dismissed",
            )
        ),
        "matches": sorted(
            (m[0], m[1], m[2], m[3], m[4], m[5], str(sorted(m[6].items())), m[7], m[8], m[9])
            for m in TrailMatch.objects.values_list(
                "item__user__username", "item__paper__arxiv_id", "follow__name", "user__username",
                "version__number", "version_number", "reason", "kind", "event_at", "unread",
            )
        ),
        "events_in_step": sorted(
            TrailMatch.objects.values_list("item__paper__arxiv_id", "follow__name", "item__latest_event_at")
        ),
    }  # fmt: skip


def counts(results) -> list[tuple]:
    return [(r.hits, r.created, r.updated, r.reopened, r.skipped) for r in results]


def forget() -> None:
    User.objects.all().delete()
    Paper.objects.all().delete()
    Author.objects.all().delete()


def test_the_configured_writer_and_the_orm_writer_leave_identical_trails(monkeypatch):
    base = timezone.now().replace(microsecond=0)
    monkeypatch.setattr(trail_copy, "COPY_USER_CHUNK", 1)
    # Follows read a page at a time while the hits stream into the writer.
    monkeypatch.setattr(trail_matching, "FOLLOW_PAGE", 2)
    configured = story(base)
    stored = snapshot()
    forget()
    monkeypatch.setattr(trail, "hits_writer", lambda: trail.write_hits_orm)
    orm = story(base)

    assert counts(configured) == counts(orm)
    assert stored == snapshot()
    # The story really ran every rule, on the writer under test.
    first, second, third = counts(configured)
    assert first[1] > 0 and second[2] > 0 and second[3] > 0 and second[4] > 0 and third[2] == 1
    items = {(row[0], row[1]): row for row in stored["items"]}
    assert items[("ada", "2611.00003")][7] and items[("ada", "2611.00003")][3] == 1  # dismissed: took nothing
    assert items[("ada", "2611.00001")][6] and items[("ada", "2611.00001")][3] == 2  # reopened
    assert not items[("ada", "2611.00002")][6]  # read, gained a reason, stays read
    assert {m[2] for m in stored["matches"] if m[:2] == ("ada", "2611.00002")} == {"lg", "ada cl"}
    assert ("bob", "2611.00003") not in items  # excluded category
    assert all(m[8] == items[(m[0], m[1])][4] for m in stored["matches"])
