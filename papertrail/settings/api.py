"""The REST API under /api/v1/ (portal.api) and its schema.

Request rates "N/period" (period: s, m, h or d): per client address for
anonymous requests, per user for signed-in ones; beyond them 429 + Retry-After.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from papertrail.settings.env import env_int, env_str

_RATE_PERIODS = {"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"}
PAPERTRAIL_API_ANON_RATE = env_str("PAPERTRAIL_API_ANON_RATE", "120/min")
PAPERTRAIL_API_USER_RATE = env_str("PAPERTRAIL_API_USER_RATE", "600/min")
for _name, _rate in (
    ("PAPERTRAIL_API_ANON_RATE", PAPERTRAIL_API_ANON_RATE),
    ("PAPERTRAIL_API_USER_RATE", PAPERTRAIL_API_USER_RATE),
):
    _count, _slash, _period = _rate.partition("/")
    if not (_count.isdecimal() and int(_count) > 0 and _period in _RATE_PERIODS):
        raise ImproperlyConfigured(f"{_name}={_rate!r} is not a rate like 120/min")
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Tokens only from the Authorization header; the session for the browser
    # (DRF enforces CSRF on session-authenticated writes).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_THROTTLE_CLASSES": [
        "portal.api.throttling.AnonRateThrottle",
        "portal.api.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {"anon": PAPERTRAIL_API_ANON_RATE, "user": PAPERTRAIL_API_USER_RATE},
    # Reverse proxies in front of the app: the client address for anonymous
    # rates is taken that many hops back in X-Forwarded-For (0: REMOTE_ADDR).
    "NUM_PROXIES": env_int("PAPERTRAIL_API_NUM_PROXIES", 0, minimum=0),
    "DEFAULT_PAGINATION_CLASS": "portal.api.pagination.KeysetPagination",
    "PAGE_SIZE": 20,
    "EXCEPTION_HANDLER": "portal.api.errors.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "PaperTrail API",
    "DESCRIPTION": (
        "Access to the PaperTrail library: papers with their versions and AI guided readings, the overview "
        "statistics, briefings and source health; and, signed in, your follows and your trail under /me/. "
        "Anonymous reads of the library are allowed; API tokens (created on "
        "/me/) go in the Authorization header (`Bearer pt_…`), never in the URL. Lists are cursor-paginated."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "portal.api.schema.document_responses",
    ],
    # One name per choice set shared by several components (accounts' Follow.Kind,
    # CardKind, Follow.Delivery, repeated here because settings import no models).
    "ENUM_NAME_OVERRIDES": {
        "FollowKindEnum": ["category", "author", "query", "filters", "topic"],
        "TrailKindEnum": ["new", "revision"],
        "DeliveryEnum": ["trail", "daily", "weekly"],
        "RatingValueEnum": ["up", "down"],
    },
}
# Swagger UI and ReDoc assets, served as this project's own static files.
