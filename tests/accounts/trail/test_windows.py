"""Many readers' trail windows read at once (accounts.trail.windows) are the
cards each reader's own window_cards gives, in a number of queries that does
not grow with the readers: switches, exclusions, dismissals, read marks,
back-fills, one follow's window and a lab group's trail."""

from __future__ import annotations

import pytest

from accounts.follows.services import exclusion_create, follow_create
from accounts.groups.services import group_create
from accounts.models import User
from accounts.trail.composition import CardFilter
from accounts.trail.models import ReaderMatch
from accounts.trail.readers import Reader
from accounts.trail.selectors import trail_windows_cards
from accounts.trail.services import trail_dismiss, trail_mark_read
from accounts.trail.types import WindowAsk
from accounts.trail.windows import window_cards
from harvest.models import Paper
from tests.accounts.conftest import ago, harvest, record

pytestmark = pytest.mark.django_db


def _reader(name: str, **options) -> User:
    user = User.objects.create_user(username=name, password="x")
    follow_create(user=user, kind="category", value={"code": "cs.LG"}, name=f"{name} learning", **options)
    return user


@pytest.fixture
def world():
    """Readers of cs.LG under every switch, papers over a month (a revision
    among them), and a reader whose follow came after the harvest (back-filled)."""
    plain, primary, new_only, excluding, dismissing, marking = (
        _reader("plain"),
        _reader("primary", include_cross_lists=False),
        _reader("new_only", include_revisions=False),
        _reader("excluding"),
        _reader("dismissing"),
        _reader("marking"),
    )
    language = follow_create(user=plain, kind="category", value={"code": "cs.CL"}, name="Language")
    exclusion_create(user=excluding, kind="query", value="transformers")
    harvest(record("2611.00009", title="An old learning paper"), at=ago(days=20))
    harvest(
        record("2611.00001"),
        record("2611.00002", categories=["cs.CL", "cs.LG"]),
        record("2611.00003", title="Transformers at scale"),
        record("2611.00004", versions=2),
        at=ago(days=1),
    )
    harvest(record("2611.00004", versions=3), record("2611.00009", title="An old learning paper", versions=2))
    late = User.objects.create_user(username="late", password="x")
    follow_create(user=late, kind="category", value={"code": "cs.LG"}, name="late learning")
    papers = dict(Paper.objects.values_list("arxiv_id", "pk"))
    trail_dismiss(user=dismissing, item_id=papers["2611.00001"])
    trail_mark_read(user=marking, up_to=ago(hours=2))
    lab = group_create(owner=plain, name="Lab")
    follow_create(group_id=lab.pk, kind="category", value={"code": "cs.LG"}, name="Lab learning")
    trail_dismiss(user=plain, item_id=papers["2611.00002"], group_id=lab.pk)
    return {
        "users": [plain, primary, new_only, excluding, dismissing, marking, late],
        "language": language,
        "lab": lab,
        "late": late,
    }


def _asks(world) -> list[WindowAsk]:
    plain = world["users"][0]
    asks = [
        WindowAsk(user.pk, None, since, ago(minutes=1))
        for user in world["users"]
        for since in (ago(hours=2), ago(days=2), ago(days=30))
    ]
    asks += [
        WindowAsk(plain.pk, None, ago(days=2), ago(minutes=1), follow_id=world["language"].pk),
        WindowAsk(plain.pk, world["lab"].pk, ago(days=2), ago(minutes=1)),
        WindowAsk(plain.pk, world["lab"].pk, ago(days=30), ago(minutes=1)),
    ]
    return asks


def _one_at_a_time(ask: WindowAsk):
    where = CardFilter(follow_id=ask.follow_id, dismissed=ask.group_id is not None)
    return window_cards(Reader.of(ask.user_id, ask.group_id), ask.since, ask.until, where)


def test_many_windows_read_at_once_are_each_readers_own_window(world):
    asks = _asks(world)
    expected = [_one_at_a_time(ask) for ask in asks]
    assert trail_windows_cards(asks) == expected
    # The world is varied enough to tell readers apart.
    assert ReaderMatch.objects.filter(user=world["late"]).exists()
    assert len({tuple(card.paper_id for card in cards) for cards in expected}) >= 6


def test_the_queries_do_not_grow_with_the_readers(world, django_assert_max_num_queries):
    asks = _asks(world)
    windows = len({(ask.since, ask.until) for ask in asks})
    # Readers (4: follows, exclusions, marks, group marks), a query per window,
    # the papers' matches, exclusions, and the card states of users and of the group.
    with django_assert_max_num_queries(4 + windows + 4):
        trail_windows_cards(asks)
