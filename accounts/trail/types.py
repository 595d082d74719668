"""The value types the trail shows the other domains and portal: defined
here or where the trail composes them, listed here once. Other domains
import the trail through this module, `models`, `selectors`, `services` and
`signals` only (tests/papertrail/test_domain_faces.py)."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.trail.composition import Card, CardFilter
from accounts.trail.windows import WindowAsk

__all__ = ["Card", "CardFilter", "TrailWriteResult", "WindowAsk"]


@dataclass
class TrailWriteResult:
    hits: int = 0
    created: int = 0
    updated: int = 0
    reopened: int = 0
    skipped: int = 0

    def add(self, other: TrailWriteResult) -> None:
        self.hits += other.hits
        self.created += other.created
        self.updated += other.updated
        self.reopened += other.reopened
        self.skipped += other.skipped
