"""Security: transport rules (production defaults; DEBUG relaxes them) and
error reports that hide credentials. Sign-in and its rate limits are in
settings/accounts.py."""

from __future__ import annotations

import base64
import binascii

from django.core.exceptions import ImproperlyConfigured

from papertrail.settings.base import DEBUG
from papertrail.settings.env import env_bool, env_int, env_list

SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    # Container and load-balancer health checks speak plain HTTP inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Error reports hide the Authorization header (API tokens) as well as secrets.
DEFAULT_EXCEPTION_REPORTER_FILTER = "accounts.reporting.CredentialSafeReporterFilter"

# Sent on every response (papertrail/csp.py). Inline styles stay allowed for
# the admin's and Swagger UI's own markup; scripts come only from this site.
PAPERTRAIL_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)

# Third-party secrets stored by the site (a Zotero API key): Fernet keys,
# comma-separated, the first encrypts and every one decrypts (rotation:
# put the new key first, keep the old one until everything is re-encrypted).
# DEBUG and the test settings have a fixed key of their own; with DEBUG off
# and none given, linking a Zotero library is refused with a message.
PAPERTRAIL_SECRET_KEYS = env_list("PAPERTRAIL_SECRET_KEYS", [])
if not PAPERTRAIL_SECRET_KEYS and DEBUG:
    PAPERTRAIL_SECRET_KEYS = ["qJVLnfRpU18tsbqsU6HUQKvJakMEH4G7g0vRCQJgQ4Y="]  # DEBUG only, never for real secrets
for _key in PAPERTRAIL_SECRET_KEYS:
    try:
        if len(base64.urlsafe_b64decode(_key.encode())) != 32:
            raise ValueError(_key)
    except (ValueError, binascii.Error):
        raise ImproperlyConfigured(
            "PAPERTRAIL_SECRET_KEYS must be Fernet keys (32 url-safe base64 bytes), comma-separated"
        ) from None
