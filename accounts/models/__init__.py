"""The accounts app's models, one module per topic."""

from accounts.models.follows import Exclusion, Follow
from accounts.models.records import Record, RecordSearch, RecordTag, Tag
from accounts.models.trail import TrailItem, TrailMatch
from accounts.models.users import (
    DEFAULT_LANGUAGE,
    DEFAULT_TIME_ZONE,
    ApiToken,
    User,
    time_zone_choices,
    validate_time_zone,
)

__all__ = [
    "DEFAULT_LANGUAGE",
    "DEFAULT_TIME_ZONE",
    "ApiToken",
    "Exclusion",
    "Follow",
    "Record",
    "RecordSearch",
    "RecordTag",
    "Tag",
    "TrailItem",
    "TrailMatch",
    "User",
    "time_zone_choices",
    "validate_time_zone",
]
