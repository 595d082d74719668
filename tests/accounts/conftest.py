"""Helpers for follow and trail tests: papers stored through the real upsert
service at times relative to now (back-fill windows are the last days), and
their new versions matched as the task after a harvest page does."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from accounts.trail.composition import Card, CardFilter, compose_papers
from accounts.trail.matching import match_versions
from accounts.trail.readers import Reader
from accounts.trail.types import TrailWriteResult
from accounts.trail.windows import all_cards
from harvest.models import Paper
from harvest.search_index import index_pending_papers
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord
from tests.factories import record, stored_dated

__all__ = ["ago", "harvest", "record", "user"]


def ago(**delta: float) -> datetime:
    return timezone.now() - timedelta(**delta)


def harvest(*records: PaperRecord, at: datetime | None = None, index: bool = True) -> TrailWriteResult:
    """Store records as a harvest page at `at` and match its new versions.
    `index=False` leaves the papers out of the full-text index, as right after
    a harvest."""
    at = at or ago(minutes=5)
    result = paper_upsert_many(records=stored_dated(records, at), now=at)
    if index:
        index_pending_papers()
    return match_versions(version_ids=result.created_version_ids)


@pytest.fixture
def user(db) -> User:
    return User.objects.create_user(username="reader", password="x")


@pytest.fixture
def other_user(db) -> User:
    return User.objects.create_user(username="other", password="x")


def cards(user: User, *, dismissed: bool = True) -> list[Card]:
    """The user's trail cards as the trail composes them (dismissed ones too), newest first."""
    return all_cards(Reader.of(user.pk), CardFilter(dismissed=dismissed))


def card_of(user: User, arxiv_id: str) -> Card | None:
    """The user's card of this paper, or None."""
    paper = Paper.objects.get(arxiv_id=arxiv_id)
    return compose_papers(Reader.of(user.pk), [paper.pk]).get(paper.pk)
