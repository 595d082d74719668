"""Helpers for follow and trail tests: papers stored through the real upsert
service at times relative to now (back-fill windows are the last days), and
their new versions matched as the task after a harvest page does."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.trail.delivery import trail_catch_up_users
from accounts.trail.lock import TrailWriteResult
from accounts.trail.matching import match_versions
from harvest.records import PaperRecord
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from tests.factories import record

__all__ = ["ago", "harvest", "record", "user"]


def ago(**delta: float) -> datetime:
    return timezone.now() - timedelta(**delta)


def harvest(*records: PaperRecord, at: datetime | None = None, index: bool = True) -> TrailWriteResult:
    """Store records as a harvest page at `at` and match its new versions.
    `index=False` leaves the papers out of the full-text index, as right after
    a harvest."""
    result = paper_upsert_many(records=list(records), now=at or ago(minutes=5))
    if index:
        index_pending_papers()
    matched = match_versions(version_ids=result.created_version_ids)
    # What a read of each trail does first: the definitions' matches into cards.
    delivered = trail_catch_up_users()
    delivered.add(matched)  # the saved papers' cards
    delivered.hits -= matched.hits  # hits: the readers', not the definitions' matches
    return delivered


@pytest.fixture
def user(db) -> User:
    return User.objects.create_user(username="reader", password="x")


@pytest.fixture
def other_user(db) -> User:
    return User.objects.create_user(username="other", password="x")
