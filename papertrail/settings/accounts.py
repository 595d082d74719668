"""Accounts: django-allauth (sign-up, sign-in by email or username, email
verification, password reset, email change), its rate limits, the site's
absolute address for links in mails, and outgoing mail."""

from __future__ import annotations

import environ
from django.core.exceptions import ImproperlyConfigured

from papertrail.settings.base import VAR_DIR
from papertrail.settings.env import env_bool, env_int, env_str, env_url

# The apps and middleware are in base.py with every other app and middleware.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# /login/ and /logout/ redirect to allauth's pages, so links and bookmarks keep working.
LOGIN_URL = "accounts:login"
# Signing in leads to the trail; a reader who follows nothing yet to the
# follows page, the trail's first step (accounts.adapter), not to settings.
LOGIN_REDIRECT_URL = "portal:trail"
LOGIN_REDIRECT_URL_WITHOUT_FOLLOWS = "portal:follows"
LOGOUT_REDIRECT_URL = "/"

# --- The site's address ---------------------------------------------------
# Links in mails (verification, password reset) are built on this, never on
# the Host header of whoever asked for the mail.
SITE_URL = env_url("PAPERTRAIL_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
SITE_NAME = "研踪 PaperTrail"

# --- allauth ----------------------------------------------------------------
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"login": "accounts.adapter.LoginForm"}
ACCOUNT_LOGIN_METHODS = {"email", "username"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
_VERIFICATION = env_str("PAPERTRAIL_ACCOUNT_EMAIL_VERIFICATION", "mandatory")
if _VERIFICATION not in ("mandatory", "optional", "none"):
    raise ImproperlyConfigured(
        f"PAPERTRAIL_ACCOUNT_EMAIL_VERIFICATION={_VERIFICATION!r} is not one of mandatory, optional, none"
    )
ACCOUNT_EMAIL_VERIFICATION = _VERIFICATION
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = False
ACCOUNT_LOGIN_ON_PASSWORD_RESET = False
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_SESSION_REMEMBER = None
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if SITE_URL.startswith("https:") else "http"
# Registration can be closed: existing accounts still sign in.
SIGNUP_OPEN = env_bool("PAPERTRAIL_SIGNUP_OPEN", True)

# Failed sign-ins count per (login, address) (accounts/adapter.py): after this
# many within the window (seconds) sign-in answers 429 with Retry-After, and
# the wait grows with further failures (twice as many over four windows, four
# times as many over sixteen); never a lock of an account from every address.
# One address trying many logins is limited on its own, more loosely (a lab
# behind one NAT address).
_ATTEMPTS = env_int("PAPERTRAIL_LOGIN_ATTEMPTS_LIMIT", 5, minimum=1)
_WINDOW = env_int("PAPERTRAIL_LOGIN_ATTEMPTS_WINDOW", 900, minimum=1)
_ADDRESS_ATTEMPTS = env_int("PAPERTRAIL_LOGIN_ADDRESS_LIMIT", 50, minimum=1)
ACCOUNT_RATE_LIMITS = {
    "login_failed": (
        f"{_ATTEMPTS}/{_WINDOW}s/key,{2 * _ATTEMPTS}/{4 * _WINDOW}s/key,{4 * _ATTEMPTS}/{16 * _WINDOW}s/key,"
        f"{_ADDRESS_ATTEMPTS}/{_WINDOW}s/ip"
    ),
    "login": "30/m/ip",
    "signup": "20/m/ip,100/h/ip",
    "reset_password": "20/m/ip,5/m/key",
    "reset_password_from_key": "20/m/ip",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
}

# --- Mail -------------------------------------------------------------------
# EMAIL_URL: smtp://user:pass@host:port, smtp+tls://…, smtp+ssl://…, or
# consolemail://. Without it, mails are written as files under var/mail/.
EMAIL_URL = env_str("EMAIL_URL")
if EMAIL_URL:
    try:
        _email = environ.Env.email_url_config(EMAIL_URL)
    except Exception as exc:  # django-environ raises several types for a bad URL
        raise ImproperlyConfigured(
            f"EMAIL_URL is not a mail URL ({exc}); use smtp://, smtp+tls://, smtp+ssl:// or consolemail://"
        ) from exc
    if _email["EMAIL_BACKEND"].endswith("smtp.EmailBackend") and not _email.get("EMAIL_HOST"):
        raise ImproperlyConfigured("EMAIL_URL names no host (smtp://user:pass@host:port)")
    EMAIL_BACKEND = _email["EMAIL_BACKEND"]
    EMAIL_HOST = _email.get("EMAIL_HOST") or "localhost"
    EMAIL_PORT = _email.get("EMAIL_PORT") or 25
    EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER") or ""
    EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD") or ""
    EMAIL_USE_TLS = bool(_email.get("EMAIL_USE_TLS"))
    EMAIL_USE_SSL = bool(_email.get("EMAIL_USE_SSL"))
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(VAR_DIR / "mail")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "PaperTrail <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Email alerts and feeds (accounts/alerts.py, portal/feeds.py) ------------
# Email alerts are sent only when mail is configured: without EMAIL_URL mails go
# to files under var/mail/, which nobody reads, so the alerts wait instead.
# A transient SMTP failure (4xx, timeout, refused connection) is retried after
# RETRY_SECONDS, doubling each time, at most ALERT_ATTEMPTS attempts in all.
ALERT_ATTEMPTS = env_int("PAPERTRAIL_ALERT_ATTEMPTS", 5, minimum=1)
ALERT_RETRY_SECONDS = env_int("PAPERTRAIL_ALERT_RETRY_SECONDS", 300, minimum=1)
# A claim older than this is taken over by a later run (its worker died); it
# is longer than one mail's build and hand-off by far.
ALERT_CLAIM_LEASE_SECONDS = env_int("PAPERTRAIL_ALERT_CLAIM_LEASE_SECONDS", 15 * 60, minimum=1)
# Users per batch of a run: claims, items and papers are read per batch, so
# memory does not grow with the number of users.
ALERT_BATCH_USERS = env_int("PAPERTRAIL_ALERT_BATCH_USERS", 200, minimum=1)
# A researcher with a ranking gets this many papers of an alert in full, in
# their order; the rest are one line each.
ALERT_TOP_PAPERS = env_int("PAPERTRAIL_ALERT_TOP_PAPERS", 10, minimum=1)
# Days an alert's "more / less like this" links work without signing in
# (signed, naming the user, the paper and the rating); older ones say so.
PAPERTRAIL_RATING_LINK_DAYS = env_int("PAPERTRAIL_RATING_LINK_DAYS", 30, minimum=1)
# Entries in a private Atom feed.
FEED_ENTRIES = env_int("PAPERTRAIL_FEED_ENTRIES", 50, minimum=1)

# --- Follows and the trail (accounts.follows, accounts.trail) -----------------
# The most follows one researcher may have; one more is refused with a message.
PAPERTRAIL_MAX_FOLLOWS = env_int("PAPERTRAIL_MAX_FOLLOWS", 200, minimum=1)
# Days of the library a new follow is matched against at once, so its trail
# is not empty until the next harvest (0: it starts with the next harvest).
PAPERTRAIL_FOLLOW_BACKFILL_DAYS = env_int("PAPERTRAIL_FOLLOW_BACKFILL_DAYS", 7, minimum=0)
# Readers who signed in (or used an API token) within this many days have
# their trail made by the workers after each matching task, so that every
# read only reads; others' is made when they sign in again.
PAPERTRAIL_TRAIL_ACTIVE_DAYS = env_int("PAPERTRAIL_TRAIL_ACTIVE_DAYS", 30, minimum=1)

# --- Chat channels (accounts/channels/) ---------------------------------------
# Their webhook addresses and bot tokens are sealed with PAPERTRAIL_SECRET_KEYS
# (settings/security.py); unset with DEBUG off, channels cannot be added.
# Webhook hosts each kind accepts (a URL elsewhere is refused: the site does not
# post to addresses a researcher makes up, such as the site's own network).
CHANNEL_ANY_HOST = False
CHANNEL_TELEGRAM_API = "https://api.telegram.org"
CHANNEL_TIMEOUT_SECONDS = 10
# Attempts at one message (backoff from RETRY_SECONDS, doubling), and the
# consecutive failed messages after which a channel is paused and its owner told.
CHANNEL_ATTEMPTS = 5
CHANNEL_RETRY_SECONDS = 300
CHANNEL_PAUSE_AFTER = 5
# Per channel: messages a minute (Feishu's and WeCom's bots allow 20) and the burst.
CHANNEL_RATE_PER_MINUTE = 20
CHANNEL_BURST = 5
CHANNEL_CLAIM_LEASE_SECONDS = 15 * 60
CHANNEL_MAX_TOP = 10
# Daily and weekly channels are sent at this hour of the owner's day (weekly: on Mondays).
CHANNEL_SEND_HOUR = 8
