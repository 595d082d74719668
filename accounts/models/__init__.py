"""The accounts app's models, one module per topic."""

from accounts.models.alerts import AlertMail, AlertMailItem, AlertSettings, AlertUnsubscribe
from accounts.models.follows import Exclusion, Follow
from accounts.models.recommendations import NotInterested, Recommendation, RecommenderModel, RecommenderProfile
from accounts.models.records import Record, RecordSearch, RecordTag, Tag
from accounts.models.trail import DefinitionMatch, TrailItem, TrailMatch
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
    "AlertMail",
    "AlertMailItem",
    "AlertSettings",
    "AlertUnsubscribe",
    "ApiToken",
    "DefinitionMatch",
    "Exclusion",
    "Follow",
    "NotInterested",
    "Recommendation",
    "RecommenderModel",
    "RecommenderProfile",
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
