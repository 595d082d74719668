"""PaperTrail settings, read from the environment (names in PRODUCT.md).

Defaults are safe for production (DEBUG off, no secret in code) and embedded for
a single machine: an SQLite file and, without REDIS_URL, a file-system Celery
broker and a file cache, so `make run` needs no server.
"""

from __future__ import annotations

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from papertrail.schedules import crontab_from, expires_for
from papertrail.settings.env import (
    env_bool,
    env_cron,
    env_float,
    env_int,
    env_list,
    env_str,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("PAPERTRAIL_VAR_DIR", str(BASE_DIR / "var")))
# Home of the embedded defaults (SQLite file, file broker, file cache).
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DJANGO_DEBUG", False)

SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off")
    SECRET_KEY = "django-insecure-development-only-key-never-used-with-debug-off"  # noqa: S105 - DEBUG only

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", [])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "accounts",
    "harvest",
    "digests",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "papertrail.middleware.ChineseFirstLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "papertrail.urls"
WSGI_APPLICATION = "papertrail.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'papertrail.sqlite3'}")
try:
    _database = environ.Env.db_url_config(DATABASE_URL)
except Exception as exc:  # django-environ raises several types for a bad URL
    raise ImproperlyConfigured(f"DATABASE_URL={DATABASE_URL!r} is not a database URL: {exc}") from exc
if _database["ENGINE"] not in ("django.db.backends.postgresql", "django.db.backends.sqlite3"):
    raise ImproperlyConfigured(f"DATABASE_URL={DATABASE_URL!r}: only PostgreSQL and SQLite are supported")
if _database["ENGINE"] == "django.db.backends.sqlite3":
    # Web, worker and beat share one file: WAL lets readers run beside the
    # writer, IMMEDIATE transactions queue writers instead of failing them.
    _database["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    _database["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
    _database["CONN_HEALTH_CHECKS"] = True
DATABASES = {"default": _database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Language and time ----------------------------------------------------
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("简体中文")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"  # stored times are UTC
DISPLAY_TIME_ZONE = "Asia/Shanghai"  # times shown to people are Beijing time

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").is_dir() else []

# --- Redis, cache and Celery ----------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    env_url("REDIS_URL", REDIS_URL, schemes=("redis", "rediss", "unix"))
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 4 * 3600}
else:
    # Embedded default for one machine: kombu's file-system transport passes
    # messages through a folder, so worker and beat need no broker server.
    _broker_dir = VAR_DIR / "celery-broker"
    _broker_dir.mkdir(exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir),
        "data_folder_out": str(_broker_dir),
        "processed_folder": str(VAR_DIR / "celery-processed"),
        "control_folder": str(VAR_DIR / "celery-control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = None
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 15 * 60, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 16 * 60, minimum=1)
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "harvest.*": {"queue": "harvest"},
    "digests.*": {"queue": "llm"},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# A harvest may page through thousands of records at arXiv's pace; it
# checkpoints after every page, so hitting this limit only pauses the run and
# the next scheduled run resumes it.
HARVEST_SOFT_TIME_LIMIT = env_int("HARVEST_SOFT_TIME_LIMIT", 2 * 3600, minimum=1)
HARVEST_TIME_LIMIT = HARVEST_SOFT_TIME_LIMIT + 300
# A source's lease outlives a stalled page; a live holder renews it after each
# page, and a holder whose process is gone loses it at once (harvest/locks.py).
HARVEST_LEASE_SECONDS = env_int("HARVEST_LEASE_SECONDS", 15 * 60, minimum=10)

# Beat schedules: one entry per source, cron overridable by environment.
HARVEST_SCHEDULES = {
    # arXiv OAI-PMH refreshes once a day after the announcement (about 00:00
    # UTC, Sunday to Thursday); checking every two hours catches it early and
    # costs a single empty request otherwise.
    "arxiv": env_cron("PAPERTRAIL_CRON_ARXIV", "17 */2 * * *"),
    # Hugging Face Daily Papers grows through the day; hourly keeps the
    # community signal fresh at one small JSON request.
    "hf_daily": env_cron("PAPERTRAIL_CRON_HF_DAILY", "43 * * * *"),
}
CELERY_BEAT_SCHEDULE = {
    f"harvest-{slug}": {
        "task": "harvest.run_source",
        "schedule": crontab_from(cron),
        "args": [slug],
        # A run that waited longer than most of the interval is dropped; the
        # next one catches up from the checkpoint.
        "options": {"expires": expires_for(cron), "queue": "harvest"},
    }
    for slug, cron in HARVEST_SCHEDULES.items()
}
# Each run that stores papers queues the full-text indexing itself; this entry
# catches papers stored by hand or by a run whose queued pass was lost.
SEARCH_INDEX_CRON = env_cron("PAPERTRAIL_CRON_SEARCH_INDEX", "*/5 * * * *")
CELERY_BEAT_SCHEDULE["harvest-search-index"] = {
    "task": "harvest.index_search",
    "schedule": crontab_from(SEARCH_INDEX_CRON),
    "options": {"expires": expires_for(SEARCH_INDEX_CRON), "queue": "harvest"},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- Sources ----------------------------------------------------------------
ARXIV_OAI_URL = env_url("ARXIV_OAI_URL", "https://oaipmh.arxiv.org/oai")
ARXIV_API_URL = env_url("ARXIV_API_URL", "https://export.arxiv.org/api/query")
ARXIV_RSS_URL = env_url("ARXIV_RSS_URL", "https://rss.arxiv.org/rss")
HF_DAILY_PAPERS_URL = env_url("HF_DAILY_PAPERS_URL", "https://huggingface.co/api/daily_papers")
ARXIV_REQUEST_DELAY = env_float("ARXIV_REQUEST_DELAY", 3.0, minimum=0.0)
ARXIV_OAI_SETS = env_list("ARXIV_OAI_SETS", ["cs"])
HTTP_TIMEOUT = env_float("PAPERTRAIL_HTTP_TIMEOUT", 60.0, minimum=1.0)
HTTP_MAX_RETRIES = env_int("PAPERTRAIL_HTTP_MAX_RETRIES", 5, minimum=0)
HTTP_BACKOFF_BASE = env_float("PAPERTRAIL_HTTP_BACKOFF_BASE", 5.0, minimum=0.0)
# Longest Retry-After the harvester honours; a longer one ends the run as failed
# (transient) so that a worker is not held for hours.
HTTP_MAX_RETRY_AFTER = env_float("PAPERTRAIL_HTTP_MAX_RETRY_AFTER", 600.0, minimum=0.0)
HTTP_USER_AGENT = env_str(
    "PAPERTRAIL_USER_AGENT",
    "PaperTrail/1.0 (research-monitoring portal; polite OAI-PMH harvester; +https://github.com/papertrail)",
)

# A paper is AI-related when its primary or any cross-listed category is in
# this set (PRODUCT.md, "AI-related"). Override with a comma-separated list.
PAPERTRAIL_AI_CATEGORIES = frozenset(
    env_list(
        "PAPERTRAIL_AI_CATEGORIES",
        ["cs.AI", "cs.LG", "cs.CL", "cs.CV", "cs.NE", "cs.IR", "cs.MA", "cs.RO", "stat.ML"],
    )
)

# --- LLM --------------------------------------------------------------------
ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
# claude-sonnet-4-5 reaches end of life on 2026-11-30 (the SDK's own table);
# Sonnet 4.6 is current and priced at $3 / $15 per million tokens.
PAPERTRAIL_SUMMARY_MODEL = env_str("PAPERTRAIL_SUMMARY_MODEL", "claude-sonnet-4-6")

# --- Logging ----------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("PAPERTRAIL_LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- Security (production defaults; DEBUG relaxes the transport rules) ----------
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# --- LLM (digests) ------------------------------------------------------------
# Guided readings (digests app). ANTHROPIC_API_KEY and PAPERTRAIL_SUMMARY_MODEL
# are read above; the base URL is the SDK's own ANTHROPIC_BASE_URL.
# Which new versions get a reading: "ai" (AI-related papers, the default) or
# "cs" (every paper in the library, i.e. all of CS as harvested).
PAPERTRAIL_SUMMARY_SCOPE = env_str("PAPERTRAIL_SUMMARY_SCOPE", "ai").lower()
if PAPERTRAIL_SUMMARY_SCOPE not in ("ai", "cs"):
    raise ImproperlyConfigured(f"PAPERTRAIL_SUMMARY_SCOPE={PAPERTRAIL_SUMMARY_SCOPE!r} must be 'ai' or 'cs'")
# Only versions submitted within this many days get a reading when they are
# harvested (0: no limit), so a first harvest of old papers is not summarised.
PAPERTRAIL_SUMMARY_MAX_AGE_DAYS = env_int("PAPERTRAIL_SUMMARY_MAX_AGE_DAYS", 30, minimum=0)
# Identifies the prompt and schema in digests/llm.py; bump it when either
# changes, and every version is summarised again under the new one.
PAPERTRAIL_SUMMARY_PROMPT_VERSION = env_str("PAPERTRAIL_SUMMARY_PROMPT_VERSION", "2026-01")
# Daily spending cap in US dollars (day in DISPLAY_TIME_ZONE), from token counts.
PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = env_float("PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD", 5.0, minimum=0.0)
# A backlog longer than this goes through the Message Batches API (half price).
PAPERTRAIL_SUMMARY_BATCH_THRESHOLD = env_int("PAPERTRAIL_SUMMARY_BATCH_THRESHOLD", 50, minimum=1)
PAPERTRAIL_SUMMARY_BATCH_MAX = env_int("PAPERTRAIL_SUMMARY_BATCH_MAX", 1000, minimum=1)
PAPERTRAIL_SUMMARY_TIMEOUT = env_float("PAPERTRAIL_SUMMARY_TIMEOUT", 120.0, minimum=1.0)
PAPERTRAIL_SUMMARY_MAX_TOKENS = env_int("PAPERTRAIL_SUMMARY_MAX_TOKENS", 2500, minimum=256)
# Attempts per call for 429/529/5xx/connection errors (the SDK's own retries are off).
PAPERTRAIL_SUMMARY_MAX_ATTEMPTS = env_int("PAPERTRAIL_SUMMARY_MAX_ATTEMPTS", 4, minimum=1)
PAPERTRAIL_SUMMARY_BACKOFF_BASE = env_float("PAPERTRAIL_SUMMARY_BACKOFF_BASE", 2.0, minimum=0.0)
# A longer retry-after than this ends the attempt as failed-transient (the
# reading goes back to pending) instead of holding a worker.
PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER = env_float("PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER", 120.0, minimum=0.0)
# A reading left "running" this long by a worker that died may be claimed again.
PAPERTRAIL_SUMMARY_STALE_SECONDS = env_int("PAPERTRAIL_SUMMARY_STALE_SECONDS", 1800, minimum=60)
# List prices in US dollars per million tokens (input, output); batches cost half.
# A model missing here is priced by the PAPERTRAIL_SUMMARY_PRICE_* fallback.
PAPERTRAIL_SUMMARY_PRICES = {
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4-0": (3.0, 15.0),
    "claude-sonnet-4-20250514": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-opus-4-1": (15.0, 75.0),
}
PAPERTRAIL_SUMMARY_PRICE_INPUT = env_float("PAPERTRAIL_SUMMARY_PRICE_INPUT", 3.0, minimum=0.0)
PAPERTRAIL_SUMMARY_PRICE_OUTPUT = env_float("PAPERTRAIL_SUMMARY_PRICE_OUTPUT", 15.0, minimum=0.0)
# Beat entries for the lead to merge into the beat schedule; `expires` is
# shorter than the interval so a late run is dropped, not stacked.
_DIGESTS_COLLECT_SECONDS = env_int("PAPERTRAIL_SUMMARY_COLLECT_SECONDS", 600, minimum=60)
_DIGESTS_DRAIN_SECONDS = env_int("PAPERTRAIL_SUMMARY_DRAIN_SECONDS", 3600, minimum=60)
CELERY_BEAT_SCHEDULE_DIGESTS = {
    # Collects finished Message Batches results and submits a batch when the
    # backlog is above the threshold.
    "digests-collect-batches": {
        "task": "digests.collect_batches",
        "schedule": _DIGESTS_COLLECT_SECONDS,
        "options": {"expires": _DIGESTS_COLLECT_SECONDS * 9 // 10},
    },
    # Works through a backlog left by pauses, budget stops or lost messages.
    "digests-drain-backlog": {
        "task": "digests.drain_backlog",
        "schedule": _DIGESTS_DRAIN_SECONDS,
        "options": {"expires": _DIGESTS_DRAIN_SECONDS * 9 // 10},
    },
}

CELERY_BEAT_SCHEDULE.update(CELERY_BEAT_SCHEDULE_DIGESTS)

# --- arXiv API source (ingest) ------------------------------------------------
# A check of the "arxiv_api" source without ids asks for the newest updates of
# this query, sorted by last update, at most this many results per check
# (harvest/sources/arxiv_api.py). Lookups by id need neither.
ARXIV_API_QUERY = env_str("ARXIV_API_QUERY", "cat:cs.*")
ARXIV_API_MAX_RESULTS = env_int("ARXIV_API_MAX_RESULTS", 500, minimum=1)
# Retries the `arxiv` package makes after a 5xx/429, an unexpectedly empty page
# or a connection error, each after ARXIV_REQUEST_DELAY seconds.
ARXIV_API_RETRIES = env_int("ARXIV_API_RETRIES", 3, minimum=0)

# --- API (REST framework) ---------------------------------------------------------
# harvest/api (endpoints under /api/v1/) and accounts (tokens, sign-in).
# Request rates "N/period" (period: s, m, h or d): per client address for
# anonymous requests, per user for signed-in ones; beyond them 429 + Retry-After.
_RATE_PERIODS = {"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"}
PAPERTRAIL_API_ANON_RATE = env_str("PAPERTRAIL_API_ANON_RATE", "120/min")
PAPERTRAIL_API_USER_RATE = env_str("PAPERTRAIL_API_USER_RATE", "600/min")
for _name, _rate in (
    ("PAPERTRAIL_API_ANON_RATE", PAPERTRAIL_API_ANON_RATE),
    ("PAPERTRAIL_API_USER_RATE", PAPERTRAIL_API_USER_RATE),
):
    _count, _slash, _period = _rate.partition("/")
    if not (_count.isdigit() and int(_count) > 0 and _period in _RATE_PERIODS):
        raise ImproperlyConfigured(f"{_name}={_rate!r} is not a rate like 120/min")
REST_FRAMEWORK.update(
    {
        # Tokens only from the Authorization header; the session for the browser
        # (DRF enforces CSRF on session-authenticated writes).
        "DEFAULT_AUTHENTICATION_CLASSES": [
            "accounts.authentication.ApiTokenAuthentication",
            "rest_framework.authentication.SessionAuthentication",
        ],
        "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
        "DEFAULT_THROTTLE_CLASSES": [
            "harvest.api.throttling.AnonRateThrottle",
            "harvest.api.throttling.UserRateThrottle",
        ],
        "DEFAULT_THROTTLE_RATES": {"anon": PAPERTRAIL_API_ANON_RATE, "user": PAPERTRAIL_API_USER_RATE},
        # Reverse proxies in front of the app: the client address for anonymous
        # rates is taken that many hops back in X-Forwarded-For (0: REMOTE_ADDR).
        "NUM_PROXIES": env_int("PAPERTRAIL_API_NUM_PROXIES", 0, minimum=0),
        "DEFAULT_PAGINATION_CLASS": "harvest.api.pagination.KeysetPagination",
        "PAGE_SIZE": 20,
        "EXCEPTION_HANDLER": "harvest.api.errors.exception_handler",
        "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
        "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
        "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    }
)
SPECTACULAR_SETTINGS = {
    "TITLE": "PaperTrail API",
    "DESCRIPTION": (
        "Read-only access to the PaperTrail library: papers with their versions and AI guided readings, the "
        "overview statistics, briefings and source health. Anonymous reads are allowed; API tokens (created on "
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
        "harvest.api.schema.document_responses",
    ],
    "ENUM_NAME_OVERRIDES": {},
}
# Swagger UI and ReDoc assets, served as this project's own static files.
INSTALLED_APPS += ["drf_spectacular_sidecar"]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "accounts:me"
LOGOUT_REDIRECT_URL = "/"
# Sign-in attempts: after this many failures from one address or against one
# username within the window (seconds), sign-in is refused with 429 until it ends.
LOGIN_ATTEMPTS_LIMIT = env_int("PAPERTRAIL_LOGIN_ATTEMPTS_LIMIT", 5, minimum=1)
LOGIN_ATTEMPTS_WINDOW = env_int("PAPERTRAIL_LOGIN_ATTEMPTS_WINDOW", 900, minimum=1)
# Error reports hide the Authorization header (API tokens) as well as secrets.
DEFAULT_EXCEPTION_REPORTER_FILTER = "accounts.reporting.CredentialSafeReporterFilter"

# --- Portal statistics (issue 6) -----------------------------------------------
# The overview's numbers are computed by a task every minute and stored in the
# cache, so no page request computes them; a request does only when the stored
# numbers are older than PORTAL_STATS_MAX_AGE_SECONDS (no worker or beat, an
# emptied cache). The pages show when the numbers were computed (the window end).
PORTAL_STATS_REFRESH_SECONDS = env_int("PAPERTRAIL_STATS_REFRESH_SECONDS", 60, minimum=10)
PORTAL_STATS_MAX_AGE_SECONDS = env_int(
    "PAPERTRAIL_STATS_MAX_AGE_SECONDS", PORTAL_STATS_REFRESH_SECONDS + 30, minimum=PORTAL_STATS_REFRESH_SECONDS
)
CELERY_IMPORTS = ["harvest.stats.tasks"]
CELERY_BEAT_SCHEDULE["portal-overview-stats"] = {
    "task": "portal.refresh_overview_stats",
    "schedule": float(PORTAL_STATS_REFRESH_SECONDS),
    # A refresh that waited most of its interval is dropped: the next one is due.
    "options": {"expires": PORTAL_STATS_REFRESH_SECONDS * 0.8, "queue": "default"},
}

# --- Announcement feed (arxiv_rss) ---
# harvest/sources/arxiv_rss.py reads ARXIV_RSS_URL + "/" + these categories
# joined by "+" (one request), conditionally (ETag / Last-Modified).
from papertrail.schedules import ZonedCron  # noqa: E402 - this block stays self-contained
from papertrail.settings.env import env_cron_list, env_zone  # noqa: E402

ARXIV_RSS_CATEGORIES = env_list("ARXIV_RSS_CATEGORIES", ["cs"])
# A source with no checkpoint starts this many days back (0: from the start
# of arXiv's history), so a new site shows recent papers within minutes.
PAPERTRAIL_FIRST_RUN_DAYS = env_int("PAPERTRAIL_FIRST_RUN_DAYS", 7, minimum=0)
# Create every configured source's row (enabled) after `migrate`, so the
# sources page lists it before its first run. Test settings turn it off.
PAPERTRAIL_CREATE_SOURCES = env_bool("PAPERTRAIL_CREATE_SOURCES", True)
# arXiv announces Sunday to Thursday at 20:00 US Eastern: poll every five
# minutes from then to 21:30 and hourly otherwise (a 304 costs one request).
PAPERTRAIL_CRON_ZONE = env_zone("PAPERTRAIL_CRON_ZONE", "America/New_York")
PAPERTRAIL_CRON_ARXIV_RSS = env_cron_list("PAPERTRAIL_CRON_ARXIV_RSS", "*/5 20 * * 0-4; 0-30/5 21 * * 0-4; 35 * * * *")
# OAI-PMH serves the day's announcement from about 22:00 US Eastern; this run
# brings its version dates and sizes the same evening (beside the UTC entry).
PAPERTRAIL_CRON_ARXIV_AFTER_ANNOUNCEMENT = env_cron_list("PAPERTRAIL_CRON_ARXIV_AFTER_ANNOUNCEMENT", "25 22 * * 0-4")
ZONED_HARVEST_SCHEDULES = {
    "harvest-arxiv_rss": ("arxiv_rss", ZonedCron(PAPERTRAIL_CRON_ARXIV_RSS, PAPERTRAIL_CRON_ZONE)),
    "harvest-arxiv-after-announcement": (
        "arxiv",
        ZonedCron(PAPERTRAIL_CRON_ARXIV_AFTER_ANNOUNCEMENT, PAPERTRAIL_CRON_ZONE),
    ),
}
for _entry, (_slug, _schedule) in ZONED_HARVEST_SCHEDULES.items():
    CELERY_BEAT_SCHEDULE[_entry] = {
        "task": "harvest.run_source",
        "schedule": _schedule,
        "args": [_slug],
        "options": {"expires": _schedule.expires(), "queue": "harvest"},
    }
