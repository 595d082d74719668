"""Core Django settings: apps, middleware, templates, the database, the cache,
language and time, logging. Read first; papertrail/settings/main.py lists the
order of the topic modules that follow.

Defaults are safe for production (DEBUG off, no secret in code) and embedded for
a single machine: an SQLite file and, without REDIS_URL, a file cache (and a
file-system Celery broker, settings/celery.py), so `make run` needs no server.
"""

from __future__ import annotations

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from papertrail.settings.env import env_bool, env_float, env_int, env_list, env_str, env_url

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
    # Swagger UI and ReDoc assets, served as this project's own static files.
    "drf_spectacular_sidecar",
    # Sign-up, sign-in, email verification and password reset (settings/accounts.py).
    "allauth",
    "allauth.account",
    # The apps, in the one direction they may import in (tests/papertrail/test_dependencies.py).
    "harvest",
    "digests",
    "accounts",
    "portal",
]

MIDDLEWARE = [
    "papertrail.csp.ContentSecurityPolicyMiddleware",
    # Turns a failed database into 503 + Retry-After (papertrail/outages.py).
    "papertrail.outages.DatabaseUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "papertrail.middleware.ChineseFirstLocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: the signed-in user's language and time zone.
    "papertrail.middleware.UserPreferencesMiddleware",
    # Under DEBUG (`make run`) too, errors show the site's own pages (papertrail/error_pages.py).
    "papertrail.error_pages.SiteErrorPagesMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # A trail page and its navigation's count read the reader's follows once.
    "portal.middleware.TrailReadersMiddleware",
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
                "papertrail.context_processors.accounts",
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
    # An unreachable server fails a request in seconds (then 503), not minutes.
    _database.setdefault("OPTIONS", {}).setdefault("connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 5, minimum=1))
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

# --- Redis and the cache ------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    env_url("REDIS_URL", REDIS_URL, schemes=("redis", "rediss", "unix"))
    CACHES = {
        "default": {
            "BACKEND": "papertrail.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            # A dead or unreachable Redis costs milliseconds, then the cache
            # serves from process memory (papertrail/cache.py).
            "OPTIONS": {
                "socket_connect_timeout": env_float("PAPERTRAIL_REDIS_CONNECT_TIMEOUT", 0.5, minimum=0.01),
                "socket_timeout": env_float("PAPERTRAIL_REDIS_TIMEOUT", 1.0, minimum=0.01),
            },
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# --- Logging ----------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("PAPERTRAIL_LOG_LEVEL", "INFO")},
    # urllib3 logs each request's path at DEBUG: a chat channel's path is its secret (a webhook key, a bot token).
    "loggers": {"django.db.backends": {"level": "WARNING"}, "urllib3": {"level": "WARNING"}},
}
