"""A follow's back-fill, walked: from follow_create until its matches are
stored, how often the code passes between follows and the trail. Follows
announces the follow once (a signal), the trail calls back once
(follow_matching_start) and stores what it returns (docs/decisions.md,
"One face per domain")."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType

import pytest

from accounts.follows.services import follow_create
from accounts.trail.models import ReaderMatch
from tests.accounts.conftest import ago, harvest, record

pytestmark = pytest.mark.django_db

WALKED = ("accounts.follows", "accounts.trail")


def _domain(frame: FrameType) -> str | None:
    module = frame.f_globals.get("__name__", "")
    return next((domain for domain in WALKED if module == domain or module.startswith(f"{domain}.")), None)


def crossings(action: Callable[[], object]) -> set[tuple[str, str]]:
    """Each distinct (caller, callee) pair of functions, in follows and the
    trail, where a call passes from one to the other, however many frames of
    Django (a signal's dispatch) lie between them."""
    found: set[tuple[str, str]] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call" or (callee := _domain(frame)) is None:
            return
        caller = frame.f_back
        while caller is not None and _domain(caller) is None:
            caller = caller.f_back
        if caller is not None and _domain(caller) != callee:
            found.add(
                (
                    f"{caller.f_globals['__name__']}.{caller.f_code.co_name}",
                    f"{frame.f_globals['__name__']}.{frame.f_code.co_name}",
                )
            )

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return found


def test_a_follows_backfill_crosses_between_follows_and_the_trail_once_each_way(user):
    harvest(record("2611.00001", categories=["cs.CL"]), record("2611.00002", categories=["cs.RO"]), at=ago(days=2))

    walk = crossings(lambda: follow_create(user=user, kind="category", value={"code": "cs.CL"}, name="CL"))

    assert walk == {
        ("accounts.follows.services.follow_create", "accounts.trail.receivers.on_follow_matching_changed"),
        ("accounts.trail.receivers.on_follow_matching_changed", "accounts.follows.services.follow_matching_start"),
    }
    assert list(ReaderMatch.objects.values_list("paper__arxiv_id", flat=True)) == ["2611.00001"]
