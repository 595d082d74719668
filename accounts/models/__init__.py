"""The accounts app's models. Identity (users, API tokens) lives here; each
domain keeps its own in its package (accounts/<domain>/models.py), imported
below only so that Django registers them with the app."""

from accounts.alerts import models as alerts_models  # noqa: F401
from accounts.channels import models as channels_models  # noqa: F401
from accounts.follows import models as follows_models  # noqa: F401
from accounts.groups import models as groups_models  # noqa: F401
from accounts.models.users import (
    DEFAULT_LANGUAGE,
    DEFAULT_TIME_ZONE,
    ApiToken,
    User,
    time_zone_choices,
    validate_time_zone,
)
from accounts.recommend import models as recommend_models  # noqa: F401
from accounts.records import models as records_models  # noqa: F401
from accounts.trail import models as trail_models  # noqa: F401
from accounts.zotero import models as zotero_models  # noqa: F401

__all__ = [
    "DEFAULT_LANGUAGE",
    "DEFAULT_TIME_ZONE",
    "ApiToken",
    "User",
    "time_zone_choices",
    "validate_time_zone",
]
