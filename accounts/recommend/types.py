"""The value types (and their limits) that recommend shows the other domains
and portal: defined where recommend uses them, listed here once. Other
domains import recommend through this module, `models`, `selectors`,
`services` and `signals` only (tests/papertrail/test_domain_faces.py)."""

from accounts.recommend.picks import MAX_PICKS, Basis, InvalidDay, PickPage
from accounts.recommend.trail_order import UNSCORED, RankCursor, RankingSeed

__all__ = ["MAX_PICKS", "UNSCORED", "Basis", "InvalidDay", "PickPage", "RankCursor", "RankingSeed"]
