"""The value types (and their limits) that follows shows the other domains and
portal: defined where follows uses them, listed here once. Other domains
import follows through this module, `models`, `selectors`, `services` and
`signals` only (tests/papertrail/test_domain_faces.py)."""

from accounts.follows.definition import FILTER_KEYS, MAX_VARIANTS, FollowDefinition, storable_text
from accounts.follows.matching import NEW, REVISION, DayIndex, FollowRules, Hit, PaperFacts
from accounts.follows.names import normalise_name
from accounts.follows.topics import (
    DEFAULT_THRESHOLD,
    MAX_DESCRIPTION,
    MAX_EXAMPLES,
    MAX_THRESHOLD,
    MIN_THRESHOLD,
    threshold_band,
)

__all__ = [
    "DEFAULT_THRESHOLD",
    "FILTER_KEYS",
    "MAX_DESCRIPTION",
    "MAX_EXAMPLES",
    "MAX_THRESHOLD",
    "MAX_VARIANTS",
    "MIN_THRESHOLD",
    "NEW",
    "REVISION",
    "DayIndex",
    "FollowDefinition",
    "FollowRules",
    "Hit",
    "PaperFacts",
    "normalise_name",
    "storable_text",
    "threshold_band",
]
