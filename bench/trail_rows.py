"""What the benches read and write of readers' trails, through the project's own
selectors and models. Imported by the benches' functions once Django is set up
(as bench.vectors is), so that this module imports the project at its top."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from accounts.trail.models import TrailState
from accounts.trail.selectors import trail_page, trail_unread_counts
from bench.common import percentile


def first_reads(users: list) -> dict:
    """Each reader's first read of the trail after the day: the first page,
    then the unread counts (every card of the day composed), once a reader."""
    counts_ms, page_ms, cards = [], [], []
    for user in users:
        started = time.perf_counter()
        trail_page(user=user)
        mark = time.perf_counter()
        counts = trail_unread_counts(user=user)
        page_ms.append((mark - started) * 1000)
        counts_ms.append((time.perf_counter() - mark) * 1000)
        cards.append(counts.total)
    return {
        "readers": len(users),
        "catch_up_p50_ms": percentile(counts_ms, 0.5),
        "catch_up_p95_ms": percentile(counts_ms, 0.95),
        "catch_up_max_ms": max(counts_ms, default=0),
        "with_first_page_p50_ms": percentile(page_ms, 0.5),
        "with_first_page_p95_ms": percentile(page_ms, 0.95),
        "cards_per_reader_mean": round(sum(cards) / max(1, len(cards)), 1),
    }


def busiest_follows(users: list) -> list[tuple]:
    """(user, their follow with most unread cards) of these users that have cards."""
    chosen = []
    for user in users:
        by_follow = trail_unread_counts(user=user).by_follow
        if by_follow:
            chosen.append((user, max(by_follow, key=by_follow.get)))
    return chosen


def dismiss(user, papers: list[tuple[int, int]]) -> None:
    """These (paper, version) cards dismissed by the user, as the trail stores them."""
    now = datetime.now(UTC)
    TrailState.objects.bulk_create(
        [TrailState(user=user, paper_id=pk, read_version=n, dismissed=True, dismissed_at=now) for pk, n in papers]
    )
