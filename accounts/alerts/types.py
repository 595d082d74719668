"""The value types alerts shows portal: defined where alerts uses them,
listed here once. Other domains and portal import alerts through this
module, `models`, `selectors` and `services` only
(tests/papertrail/test_domain_faces.py)."""

from accounts.alerts.feeds import FeedEntry, FeedState
from accounts.alerts.links import FeedLink, InvalidRatingLink, RatingLink

__all__ = ["FeedEntry", "FeedLink", "FeedState", "InvalidRatingLink", "RatingLink"]
