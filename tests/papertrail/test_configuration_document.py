"""Configuration as documented: every variable in docs/configuration.md's table
is read from the environment through papertrail/settings/env.py and changes
the settings, and every variable the settings read is in the table.

Each variable is set, in a fresh `python -c` process on
papertrail.settings.main, to a valid value other than its default; the
settings it should change are printed as JSON and compared with the expected
value and with the same settings read without the variable. Variables that do
not interact share one process; a variable that is read only beside another
(DATABASE_CONNECT_TIMEOUT needs a PostgreSQL DATABASE_URL) names it as its
context and is compared with a default read in that same context.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT

DOCUMENT = PROJECT_ROOT / "docs" / "configuration.md"
SETTINGS_DIR = PROJECT_ROOT / "papertrail" / "settings"

_TMP = Path(tempfile.gettempdir())
# The default var/ would be the checkout's own; these processes use a folder of their own.
BASE_VAR_DIR = str(_TMP / "papertrail-configuration-document")
OTHER_VAR_DIR = str(_TMP / "papertrail-configuration-document-other")

# DJANGO_DEBUG stays off (the production default) so that the transport
# settings DJANGO_SECURE_* are read; a secret is then required.
BASE_ENV = {
    "DJANGO_SETTINGS_MODULE": "papertrail.settings.main",
    "DJANGO_SECRET_KEY": "configuration-document-base-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
    "PAPERTRAIL_VAR_DIR": BASE_VAR_DIR,
}
# Only these are passed on from the test's own environment (never DATABASE_URL and the like).
PASSED_ON = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")

POSTGRES = {"DATABASE_URL": "postgres://reader:secret@db.example.org:5433/papertrail_doc"}
REDIS = {"REDIS_URL": "redis://cache.example.org:6379/2"}

_RATES = "s.ACCOUNT_RATE_LIMITS['login_failed'].split(',')"
_BEAT = "s.CELERY_BEAT_SCHEDULE"


@dataclass(frozen=True)
class Case:
    """A variable's test value, how to observe its effect (a Python expression
    over `s`, django.conf.settings; `cron(schedule)` gives a beat crontab's
    five fields), the expected observation, and the variables it is read beside."""

    value: str
    observe: str
    expected: object
    context: Mapping[str, str] = field(default_factory=dict)
    # Run in a process of its own (it changes what other variables do).
    alone: bool = False


# Every variable of docs/configuration.md, and nothing else: a variable added to
# the document (or removed from it) fails test_document_and_mapping_name_the_same_variables.
VARIABLES: dict[str, Case] = {
    # --- base.py, security.py ---
    "DJANGO_SECRET_KEY": Case(
        "another-secret-for-the-document-test-0123456789-abcdef",
        "s.SECRET_KEY",
        "another-secret-for-the-document-test-0123456789-abcdef",
    ),
    "DJANGO_DEBUG": Case("1", "s.DEBUG", True, alone=True),
    "DJANGO_ALLOWED_HOSTS": Case("a.example.org, b.example.org", "s.ALLOWED_HOSTS", ["a.example.org", "b.example.org"]),
    "DJANGO_CSRF_TRUSTED_ORIGINS": Case("https://a.example.org", "s.CSRF_TRUSTED_ORIGINS", ["https://a.example.org"]),
    "DJANGO_SECURE_SSL_REDIRECT": Case("0", "s.SECURE_SSL_REDIRECT", False),
    "DJANGO_SECURE_HSTS_SECONDS": Case("3600", "s.SECURE_HSTS_SECONDS", 3600),
    "PAPERTRAIL_VAR_DIR": Case(
        OTHER_VAR_DIR, "s.CELERY_BEAT_SCHEDULE_FILENAME", f"{OTHER_VAR_DIR}/celerybeat-schedule"
    ),
    "DATABASE_URL": Case(
        POSTGRES["DATABASE_URL"],
        "[s.DATABASES['default'][key] for key in ('ENGINE', 'HOST', 'PORT', 'NAME')]",
        ["django.db.backends.postgresql", "db.example.org", 5433, "papertrail_doc"],
    ),
    "DATABASE_CONN_MAX_AGE": Case("120", "s.DATABASES['default']['CONN_MAX_AGE']", 120, context=POSTGRES),
    "DATABASE_CONNECT_TIMEOUT": Case("9", "s.DATABASES['default']['OPTIONS']['connect_timeout']", 9, context=POSTGRES),
    "REDIS_URL": Case(
        REDIS["REDIS_URL"],
        "[s.CACHES['default']['LOCATION'], s.CELERY_BROKER_URL]",
        [REDIS["REDIS_URL"], REDIS["REDIS_URL"]],
    ),
    "PAPERTRAIL_REDIS_CONNECT_TIMEOUT": Case(
        "0.25", "s.CACHES['default']['OPTIONS']['socket_connect_timeout']", 0.25, context=REDIS
    ),
    "PAPERTRAIL_REDIS_TIMEOUT": Case("2.5", "s.CACHES['default']['OPTIONS']['socket_timeout']", 2.5, context=REDIS),
    "PAPERTRAIL_BROKER_POLL_SECONDS": Case(
        "0.25", "s.CELERY_BROKER_TRANSPORT_OPTIONS['polling_interval']", 0.25, alone=True
    ),
    "PAPERTRAIL_LOG_LEVEL": Case("DEBUG", "s.LOGGING['root']['level']", "DEBUG"),
    # --- celery.py ---
    "CELERY_TASK_SOFT_TIME_LIMIT": Case("1200", "s.CELERY_TASK_SOFT_TIME_LIMIT", 1200),
    "CELERY_TASK_TIME_LIMIT": Case("1300", "s.CELERY_TASK_TIME_LIMIT", 1300),
    "HARVEST_LEASE_SECONDS": Case("600", "s.HARVEST_LEASE_SECONDS", 600),
    "HARVEST_SOFT_TIME_LIMIT": Case("3600", "[s.HARVEST_SOFT_TIME_LIMIT, s.HARVEST_TIME_LIMIT]", [3600, 3900]),
    "PAPERTRAIL_CRON_ARXIV": Case("7 */3 * * *", f"cron({_BEAT}['harvest-arxiv']['schedule'])", "7 */3 * * *"),
    "PAPERTRAIL_CRON_HF_DAILY": Case("13 * * * *", f"cron({_BEAT}['harvest-hf_daily']['schedule'])", "13 * * * *"),
    "PAPERTRAIL_CRON_ARXIV_RSS": Case(
        "*/10 20 * * 0-4; 45 * * * *",
        f"{_BEAT}['harvest-arxiv_rss']['schedule'].expressions",
        ["*/10 20 * * 0-4", "45 * * * *"],
    ),
    "PAPERTRAIL_CRON_ARXIV_AFTER_ANNOUNCEMENT": Case(
        "30 22 * * 0-4", f"{_BEAT}['harvest-arxiv-after-announcement']['schedule'].expressions", ["30 22 * * 0-4"]
    ),
    "PAPERTRAIL_CRON_ZONE": Case(
        "America/Chicago",
        f"[{_BEAT}[entry]['schedule'].zone for entry in ('harvest-arxiv_rss', 'harvest-arxiv-after-announcement')]",
        ["America/Chicago", "America/Chicago"],
    ),
    "PAPERTRAIL_CRON_ALERTS": Case(
        "0 21 * * 0-4", f"{_BEAT}['accounts-send-alerts']['schedule'].expressions", ["0 21 * * 0-4"]
    ),
    "PAPERTRAIL_CRON_ALERTS_ZONE": Case(
        "Europe/Berlin", f"{_BEAT}['accounts-send-alerts']['schedule'].zone", "Europe/Berlin"
    ),
    "PAPERTRAIL_CRON_SEARCH_INDEX": Case(
        "*/15 * * * *", f"cron({_BEAT}['harvest-search-index']['schedule'])", "*/15 * * * *"
    ),
    "PAPERTRAIL_CRON_EMBED": Case(
        "*/20 * * * *", f"cron({_BEAT}['harvest-embed-backlog']['schedule'])", "*/20 * * * *"
    ),
    "PAPERTRAIL_EMBEDDING_MODEL": Case(
        "sentence-transformers:all-MiniLM-L6-v2",
        "s.PAPERTRAIL_EMBEDDING_MODEL",
        "sentence-transformers:all-MiniLM-L6-v2",
    ),
    "PAPERTRAIL_EMBED_BATCH": Case("500", "s.PAPERTRAIL_EMBED_BATCH", 500),
    "PAPERTRAIL_ARXIV_HTML_URL": Case(
        "https://mirror.example.org/html", "s.PAPERTRAIL_ARXIV_HTML_URL", "https://mirror.example.org/html"
    ),
    "PAPERTRAIL_ARXIV_PDF_URL": Case(
        "https://mirror.example.org/pdf", "s.PAPERTRAIL_ARXIV_PDF_URL", "https://mirror.example.org/pdf"
    ),
    "PAPERTRAIL_FULLTEXT_FOR_YOU": Case("5", "s.PAPERTRAIL_FULLTEXT_FOR_YOU", 5),
    "PAPERTRAIL_FULLTEXT_POPULAR": Case("7", "s.PAPERTRAIL_FULLTEXT_POPULAR", 7),
    "PAPERTRAIL_FULLTEXT_OPENED_PER_DAY": Case("9", "s.PAPERTRAIL_FULLTEXT_OPENED_PER_DAY", 9),
    "PAPERTRAIL_FULLTEXT_MAX_BYTES": Case("2048", "s.PAPERTRAIL_FULLTEXT_MAX_BYTES", 2048),
    "PAPERTRAIL_FULLTEXT_MAX_PAGES": Case("12", "s.PAPERTRAIL_FULLTEXT_MAX_PAGES", 12),
    "PAPERTRAIL_FULLTEXT_SECONDS": Case("30", "s.PAPERTRAIL_FULLTEXT_SECONDS", 30.0),
    "PAPERTRAIL_FULLTEXT_BATCH": Case("25", "s.PAPERTRAIL_FULLTEXT_BATCH", 25),
    "PAPERTRAIL_CRON_FULLTEXT": Case(
        "*/30 * * * *", f"cron({_BEAT}['harvest-fetch-full-texts']['schedule'])", "*/30 * * * *"
    ),
    "PAPERTRAIL_PRELOAD_SEARCH_MODELS": Case("0", "s.PAPERTRAIL_PRELOAD_SEARCH_MODELS", False),
    "PAPERTRAIL_SUMMARY_COLLECT_SECONDS": Case("300", f"{_BEAT}['digests-collect-batches']['schedule']", 300),
    "PAPERTRAIL_SUMMARY_DRAIN_SECONDS": Case("1800", f"{_BEAT}['digests-drain-backlog']['schedule']", 1800),
    "PAPERTRAIL_STATS_REFRESH_SECONDS": Case(
        "120", f"[s.PORTAL_STATS_REFRESH_SECONDS, {_BEAT}['portal-overview-stats']['schedule']]", [120, 120.0]
    ),
    "PAPERTRAIL_STATS_MAX_AGE_SECONDS": Case("300", "s.PORTAL_STATS_MAX_AGE_SECONDS", 300),
    # --- sources.py ---
    "PAPERTRAIL_FIRST_RUN_DAYS": Case("0", "s.PAPERTRAIL_FIRST_RUN_DAYS", 0),
    "PAPERTRAIL_POPULAR_WINDOW_DAYS": Case("30", "s.PAPERTRAIL_POPULAR_WINDOW_DAYS", 30),
    "PAPERTRAIL_ARXIV_HOLIDAYS": Case(
        "2026-12-24, 2026-12-31",
        "sorted(day.isoformat() for day in s.PAPERTRAIL_ARXIV_HOLIDAYS)",
        ["2026-12-24", "2026-12-31"],
    ),
    "PAPERTRAIL_CREATE_SOURCES": Case("0", "s.PAPERTRAIL_CREATE_SOURCES", False),
    "ARXIV_OAI_URL": Case("https://oai.example.org/oai", "s.ARXIV_OAI_URL", "https://oai.example.org/oai"),
    "ARXIV_OAI_SETS": Case("cs,math", "s.ARXIV_OAI_SETS", ["cs", "math"]),
    "ARXIV_RSS_URL": Case("https://rss.example.org/rss", "s.ARXIV_RSS_URL", "https://rss.example.org/rss"),
    "ARXIV_RSS_CATEGORIES": Case("cs.AI,cs.LG", "s.ARXIV_RSS_CATEGORIES", ["cs.AI", "cs.LG"]),
    "ARXIV_API_URL": Case("https://api.example.org/query", "s.ARXIV_API_URL", "https://api.example.org/query"),
    "HF_DAILY_PAPERS_URL": Case(
        "https://hf.example.org/api/daily_papers", "s.HF_DAILY_PAPERS_URL", "https://hf.example.org/api/daily_papers"
    ),
    "ARXIV_API_QUERY": Case("cat:cs.AI", "s.ARXIV_API_QUERY", "cat:cs.AI"),
    "ARXIV_API_MAX_RESULTS": Case("100", "s.ARXIV_API_MAX_RESULTS", 100),
    "ARXIV_API_RETRIES": Case("1", "s.ARXIV_API_RETRIES", 1),
    "ARXIV_REQUEST_DELAY": Case("1.5", "s.ARXIV_REQUEST_DELAY", 1.5),
    "PAPERTRAIL_HTTP_TIMEOUT": Case("30", "s.HTTP_TIMEOUT", 30.0),
    "PAPERTRAIL_HTTP_MAX_RETRIES": Case("2", "s.HTTP_MAX_RETRIES", 2),
    "PAPERTRAIL_HTTP_BACKOFF_BASE": Case("1.5", "s.HTTP_BACKOFF_BASE", 1.5),
    "PAPERTRAIL_HTTP_MAX_RETRY_AFTER": Case("120", "s.HTTP_MAX_RETRY_AFTER", 120.0),
    "PAPERTRAIL_HTTP_MAX_BYTES": Case("1048576", "s.HTTP_MAX_BYTES", 1048576),
    "PAPERTRAIL_HF_DAILY_MAX_BYTES": Case("2097152", "s.HF_DAILY_MAX_BYTES", 2097152),
    "PAPERTRAIL_HTTP_DEADLINE": Case("120", "s.HTTP_DEADLINE", 120.0),
    "PAPERTRAIL_ANALYZE_AFTER": Case("500", "s.PAPERTRAIL_ANALYZE_AFTER", 500),
    "PAPERTRAIL_USER_AGENT": Case(
        "PaperTrail-test/2.0 (ops@example.org)", "s.HTTP_USER_AGENT", "PaperTrail-test/2.0 (ops@example.org)"
    ),
    "PAPERTRAIL_AI_CATEGORIES": Case("cs.AI,cs.CL", "sorted(s.PAPERTRAIL_AI_CATEGORIES)", ["cs.AI", "cs.CL"]),
    # --- llm.py ---
    "ANTHROPIC_API_KEY": Case("sk-ant-document-test", "s.ANTHROPIC_API_KEY", "sk-ant-document-test"),
    "ANTHROPIC_BASE_URL": Case("https://llm.example.org", "s.ANTHROPIC_BASE_URL", "https://llm.example.org"),
    "PAPERTRAIL_SUMMARY_MODEL": Case("claude-haiku-4-5", "s.PAPERTRAIL_SUMMARY_MODEL", "claude-haiku-4-5"),
    "PAPERTRAIL_SUMMARY_SCOPE": Case("CS", "s.PAPERTRAIL_SUMMARY_SCOPE", "cs"),
    "PAPERTRAIL_SUMMARY_MAX_AGE_DAYS": Case("0", "s.PAPERTRAIL_SUMMARY_MAX_AGE_DAYS", 0),
    "PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD": Case("12.5", "s.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD", 12.5),
    "PAPERTRAIL_SUMMARY_BATCH_THRESHOLD": Case("20", "s.PAPERTRAIL_SUMMARY_BATCH_THRESHOLD", 20),
    "PAPERTRAIL_SUMMARY_BATCH_MAX": Case("500", "s.PAPERTRAIL_SUMMARY_BATCH_MAX", 500),
    "PAPERTRAIL_SUMMARY_PROMPT_VERSION": Case("2026-07", "s.PAPERTRAIL_SUMMARY_PROMPT_VERSION", "2026-07"),
    "PAPERTRAIL_SUMMARY_TIMEOUT": Case("60", "s.PAPERTRAIL_SUMMARY_TIMEOUT", 60.0),
    "PAPERTRAIL_SUMMARY_MAX_TOKENS": Case("4000", "s.PAPERTRAIL_SUMMARY_MAX_TOKENS", 4000),
    "PAPERTRAIL_SUMMARY_FULLTEXT_TOKENS": Case("12000", "s.PAPERTRAIL_SUMMARY_FULLTEXT_TOKENS", 12000),
    "PAPERTRAIL_SUMMARY_MAX_ATTEMPTS": Case("2", "s.PAPERTRAIL_SUMMARY_MAX_ATTEMPTS", 2),
    "PAPERTRAIL_SUMMARY_BACKOFF_BASE": Case("0.5", "s.PAPERTRAIL_SUMMARY_BACKOFF_BASE", 0.5),
    "PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER": Case("30", "s.PAPERTRAIL_SUMMARY_MAX_RETRY_AFTER", 30.0),
    "PAPERTRAIL_SUMMARY_STALE_SECONDS": Case("900", "s.PAPERTRAIL_SUMMARY_STALE_SECONDS", 900),
    "PAPERTRAIL_SUMMARY_PRICE_INPUT": Case("1.25", "s.PAPERTRAIL_SUMMARY_PRICE_INPUT", 1.25),
    "PAPERTRAIL_SUMMARY_PRICE_OUTPUT": Case("6.5", "s.PAPERTRAIL_SUMMARY_PRICE_OUTPUT", 6.5),
    "OPENAI_API_KEY": Case("sk-document-test", "s.OPENAI_API_KEY", "sk-document-test"),
    "OPENAI_BASE_URL": Case("https://api.deepseek.com/v1", "s.OPENAI_BASE_URL", "https://api.deepseek.com/v1"),
    "PAPERTRAIL_OPENAI_STRUCTURED": Case("JSON", "s.PAPERTRAIL_OPENAI_STRUCTURED", "json"),
    "PAPERTRAIL_OPENAI_CURRENCY": Case("¥", "s.PAPERTRAIL_OPENAI_CURRENCY", "¥"),
    "PAPERTRAIL_OPENAI_DAILY_BUDGET": Case("30", "s.PAPERTRAIL_OPENAI_DAILY_BUDGET", 30.0),
    "PAPERTRAIL_OPENAI_PRICE_INPUT": Case("2", "s.PAPERTRAIL_OPENAI_PRICE_INPUT", 2.0),
    "PAPERTRAIL_OPENAI_PRICE_OUTPUT": Case("3", "s.PAPERTRAIL_OPENAI_PRICE_OUTPUT", 3.0),
    "PAPERTRAIL_OPENAI_BATCHES": Case("1", "s.PAPERTRAIL_OPENAI_BATCHES", True),
    "PAPERTRAIL_LLM_ENDPOINTS": Case(
        '{"ollama": {"base_url": "http://127.0.0.1:11434/v1", "structured": "json", "price": [0, 0]}}',
        "[s.PAPERTRAIL_LLM_ENDPOINTS['ollama'][k] for k in ('protocol', 'structured', 'price')]",
        ["openai", "json", [0.0, 0.0]],
    ),
    "PAPERTRAIL_LLM_READINGS": Case("openai:deepseek-chat", "s.PAPERTRAIL_LLM_READINGS", "openai:deepseek-chat"),
    "PAPERTRAIL_LLM_ASK": Case("openai:deepseek-reasoner", "s.PAPERTRAIL_LLM_ASK", "openai:deepseek-reasoner"),
    "PAPERTRAIL_LLM_TRANSLATE": Case("openai:qwen-turbo", "s.PAPERTRAIL_LLM_TRANSLATE", "openai:qwen-turbo"),
    "PAPERTRAIL_TRANSLATE_TIMEOUT": Case("5", "s.PAPERTRAIL_TRANSLATE_TIMEOUT", 5.0),
    "PAPERTRAIL_TRANSLATE_CACHE_SECONDS": Case("3600", "s.PAPERTRAIL_TRANSLATE_CACHE_SECONDS", 3600),
    "PAPERTRAIL_ASK_TOP_K": Case("20", "s.PAPERTRAIL_ASK_TOP_K", 20),
    "PAPERTRAIL_ASK_ANONYMOUS": Case("1", "s.PAPERTRAIL_ASK_ANONYMOUS", True),
    "PAPERTRAIL_ASK_TIMEOUT": Case("30", "s.PAPERTRAIL_ASK_TIMEOUT", 30.0),
    "PAPERTRAIL_ASK_MAX_TOKENS": Case("3000", "s.PAPERTRAIL_ASK_MAX_TOKENS", 3000),
    "PAPERTRAIL_ASK_USER_RATE": Case("10/hour", "s.PAPERTRAIL_ASK_USER_RATE", "10/hour"),
    "PAPERTRAIL_ASK_ADDRESS_RATE": Case("20/min", "s.PAPERTRAIL_ASK_ADDRESS_RATE", "20/min"),
    # --- api.py ---
    "PAPERTRAIL_API_ANON_RATE": Case("30/min", "s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['anon']", "30/min"),
    "PAPERTRAIL_API_USER_RATE": Case("100/min", "s.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']['user']", "100/min"),
    "PAPERTRAIL_API_NUM_PROXIES": Case("1", "s.REST_FRAMEWORK['NUM_PROXIES']", 1),
    # --- recommend.py ---
    "PAPERTRAIL_RECOMMEND_MIN_SAVES": Case("5", "s.RECOMMEND_MIN_SAVES", 5),
    "PAPERTRAIL_RECOMMEND_WINDOW_DAYS": Case("7", "s.RECOMMEND_WINDOW_DAYS", 7),
    "PAPERTRAIL_RECOMMEND_RETRAIN_DELAY": Case("30", "s.RECOMMEND_RETRAIN_DELAY_SECONDS", 30),
    "PAPERTRAIL_RECOMMEND_IN_ALERTS": Case("1", "s.RECOMMEND_IN_ALERTS", True),
    # --- accounts.py ---
    "PAPERTRAIL_LOGIN_ATTEMPTS_LIMIT": Case("3", f"{_RATES}[0].split('/')[0]", "3"),
    "PAPERTRAIL_LOGIN_ATTEMPTS_WINDOW": Case("600", f"{_RATES}[0].split('/')[1]", "600s"),
    "PAPERTRAIL_LOGIN_ADDRESS_LIMIT": Case("20", f"{_RATES}[3].split('/')[0]", "20"),
    "PAPERTRAIL_ACCOUNT_EMAIL_VERIFICATION": Case("optional", "s.ACCOUNT_EMAIL_VERIFICATION", "optional"),
    "PAPERTRAIL_SIGNUP_OPEN": Case("0", "s.SIGNUP_OPEN", False),
    "PAPERTRAIL_SITE_URL": Case(
        "https://papertrail.example.org/",
        "[s.SITE_URL, s.ACCOUNT_DEFAULT_HTTP_PROTOCOL]",
        ["https://papertrail.example.org", "https"],
    ),
    "EMAIL_URL": Case(
        "smtp+tls://mailer:pw@mail.example.org:587",
        "[s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS]",
        ["django.core.mail.backends.smtp.EmailBackend", "mail.example.org", 587, True],
    ),
    "DEFAULT_FROM_EMAIL": Case(
        "研踪 <alerts@example.org>", "[s.DEFAULT_FROM_EMAIL, s.SERVER_EMAIL]", ["研踪 <alerts@example.org>"] * 2
    ),
    "EMAIL_TIMEOUT": Case("5", "s.EMAIL_TIMEOUT", 5),
    "PAPERTRAIL_ALERT_ATTEMPTS": Case("3", "s.ALERT_ATTEMPTS", 3),
    "PAPERTRAIL_ALERT_RETRY_SECONDS": Case("60", "s.ALERT_RETRY_SECONDS", 60),
    "PAPERTRAIL_ALERT_CLAIM_LEASE_SECONDS": Case("600", "s.ALERT_CLAIM_LEASE_SECONDS", 600),
    "PAPERTRAIL_ALERT_BATCH_USERS": Case("50", "s.ALERT_BATCH_USERS", 50),
    "PAPERTRAIL_ALERT_TOP_PAPERS": Case("5", "s.ALERT_TOP_PAPERS", 5),
    "PAPERTRAIL_RATING_LINK_DAYS": Case("7", "s.PAPERTRAIL_RATING_LINK_DAYS", 7),
    "PAPERTRAIL_FEED_ENTRIES": Case("20", "s.FEED_ENTRIES", 20),
    "PAPERTRAIL_MAX_FOLLOWS": Case("50", "s.PAPERTRAIL_MAX_FOLLOWS", 50),
    "PAPERTRAIL_FOLLOW_BACKFILL_DAYS": Case("3", "s.PAPERTRAIL_FOLLOW_BACKFILL_DAYS", 3),
    "PAPERTRAIL_TRAIL_ACTIVE_DAYS": Case("90", "s.PAPERTRAIL_TRAIL_ACTIVE_DAYS", 90),
    # --- records.py ---
    "PAPERTRAIL_RECORDS_IMPORT_MAX_BYTES": Case("1048576", "s.RECORDS_IMPORT_MAX_BYTES", 1048576),
    "PAPERTRAIL_RECORDS_IMPORT_MAX_LOOKUPS": Case("0", "s.RECORDS_IMPORT_MAX_LOOKUPS", 0),
    "PAPERTRAIL_ZOTERO_API_URL": Case("http://127.0.0.1:9/zotero", "s.ZOTERO_API_URL", "http://127.0.0.1:9/zotero"),
    "PAPERTRAIL_ZOTERO_SYNC_MINUTES": Case("5", "s.ZOTERO_SYNC_MINUTES", 5),
    # --- security.py ---
    "PAPERTRAIL_SECRET_KEYS": Case(
        "HtYQgYX0ofYeUGO_UPcWUYLqHhxnyVyMw_TopTBgBMY=,qJVLnfRpU18tsbqsU6HUQKvJakMEH4G7g0vRCQJgQ4Y=",
        "s.PAPERTRAIL_SECRET_KEYS",
        ["HtYQgYX0ofYeUGO_UPcWUYLqHhxnyVyMw_TopTBgBMY=", "qJVLnfRpU18tsbqsU6HUQKvJakMEH4G7g0vRCQJgQ4Y="],
    ),
}

# Former names still accepted while the new name is unset (env.env_renamed):
# former -> new. The document mentions each in the row of its new name.
FORMER_NAMES = {"PAPERTRAIL_RECOMMEND_IN_DIGEST": "PAPERTRAIL_RECOMMEND_IN_ALERTS"}
# (label, environment, expression, expected)
FORMER_NAME_CASES = [
    ("former name alone", {"PAPERTRAIL_RECOMMEND_IN_DIGEST": "1"}, "s.RECOMMEND_IN_ALERTS", True),
    (
        "new name wins",
        {"PAPERTRAIL_RECOMMEND_IN_DIGEST": "1", "PAPERTRAIL_RECOMMEND_IN_ALERTS": "0"},
        "s.RECOMMEND_IN_ALERTS",
        False,
    ),
]


# --- Reading the document -------------------------------------------------------

_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")
_SHORTHAND = re.compile(r"…(_[A-Z0-9]+)+")


def shorthand_prefix(first: str) -> str:
    """What `…` stands for in a row (docs/configuration.md says so above the
    table): the first two words of the row's first name."""
    words = first.split("_")
    assert len(words) > 2, f"{first}: a name needs more than two words to abbreviate the others of its row"
    return "_".join(words[:2])


def variables_in_row(cell: str) -> list[str]:
    """The variable names in a table row's first cell, `…_SUFFIX` expanded."""
    names: list[str] = []
    for token in re.findall(r"`([^`]*)`", cell):
        if _NAME.fullmatch(token):
            names.append(token)
        elif _SHORTHAND.fullmatch(token):
            assert names, f"{cell.strip()}: {token} comes before any full name to abbreviate"
            names.append(shorthand_prefix(names[0]) + token.removeprefix("…"))
        else:
            raise AssertionError(f"{cell.strip()}: {token!r} is neither a variable name nor a `…_NAME` shorthand")
    assert names, f"a table row names no variable: {cell.strip()}"
    return names


def document_rows(text: str) -> list[tuple[list[str], str]]:
    """(variables, the rest of the row) for each row of the table(s) whose
    first column is "variable"."""
    rows: list[tuple[list[str], str]] = []
    in_table = False
    for line in text.splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = line.split("|")
        first = cells[1].strip()
        if first == "variable":
            in_table = True
        elif in_table and not set(first) <= set("-: "):
            rows.append((variables_in_row(cells[1]), "|".join(cells[2:])))
    return rows


def documented_variables() -> list[str]:
    return [name for names, _rest in document_rows(DOCUMENT.read_text(encoding="utf-8")) for name in names]


def test_shorthand_rows_are_expanded_with_the_first_names_prefix():
    table = (
        "| variable | default |\n| --- | --- |\n"
        "| `PAPERTRAIL_SUMMARY_PRICE_INPUT`, `…_PRICE_OUTPUT`, `…_COLLECT_SECONDS` | 3.0, 15.0, 600 |\n"
        "| `PAPERTRAIL_SUMMARY_TIMEOUT`, `…_MAX_TOKENS` | 120 s, 2500 |\n"
    )
    assert [names for names, _rest in document_rows(table)] == [
        ["PAPERTRAIL_SUMMARY_PRICE_INPUT", "PAPERTRAIL_SUMMARY_PRICE_OUTPUT", "PAPERTRAIL_SUMMARY_COLLECT_SECONDS"],
        ["PAPERTRAIL_SUMMARY_TIMEOUT", "PAPERTRAIL_SUMMARY_MAX_TOKENS"],
    ]
    with pytest.raises(AssertionError, match="neither a variable name"):
        variables_in_row(" `PAPERTRAIL_X`, `max tokens` ")


def test_document_and_mapping_name_the_same_variables():
    documented = documented_variables()
    repeated = sorted({name for name in documented if documented.count(name) > 1})
    assert not repeated, f"named in more than one row of docs/configuration.md: {repeated}"
    missing = sorted(set(documented) - set(VARIABLES))
    assert not missing, f"documented, but this test has no value and observation for them (add to VARIABLES): {missing}"
    extra = sorted(set(VARIABLES) - set(documented))
    assert not extra, f"in VARIABLES but not in docs/configuration.md's table: {extra}"


def test_former_names_are_documented_in_their_new_names_row():
    rows = document_rows(DOCUMENT.read_text(encoding="utf-8"))
    for former, new in FORMER_NAMES.items():
        assert new in VARIABLES
        (rest,) = [rest for names, rest in rows if new in names]
        assert f"`{former}`" in rest, f"the row of {new} does not say that {former} is still accepted"


# --- The settings' side ------------------------------------------------------------


def _settings_modules() -> list[Path]:
    # test.py only sets test defaults before importing main.py.
    return [path for path in sorted(SETTINGS_DIR.glob("*.py")) if path.name not in ("env.py", "test.py")]


def test_settings_read_the_environment_only_through_env_py():
    direct = []
    for path in _settings_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
                direct.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "os":
                direct.append(f"{path.name}:{node.lineno}")
    assert not direct, f"read the environment without papertrail/settings/env.py: {direct}"


def _names_in_reader_calls() -> set[str]:
    """Every literal name passed to a reader of env.py in the settings modules,
    in any branch (some are read only beside another variable): the first
    argument of each env_* call, both names of env_renamed."""
    names: set[str] = set()
    for path in _settings_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("env_")):
                continue
            arguments = node.args if node.func.id == "env_renamed" else node.args[:1]
            names.update(arg.value for arg in arguments if isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    return names


# --- Running the settings ---------------------------------------------------------

# Records every name env.py is asked for, loads the settings, and prints the
# observations as JSON.
_PROBE = """
import json, sys
import papertrail.settings.env as env
read = set()
_raw = env._raw
def _recording(name):
    read.add(name)
    return _raw(name)
env._raw = _recording
from django.conf import settings as s
def cron(schedule):
    fields = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")
    return " ".join(str(getattr(schedule, "_orig_" + f)) for f in fields)
values = {}
for label, expression in json.loads(sys.stdin.read()).items():
    try:
        values[label] = eval(expression, {"s": s, "cron": cron})
    except Exception as exc:
        values[label] = {"error": repr(exc)}
def plain(value):
    return sorted(value) if isinstance(value, (set, frozenset)) else str(value)
print(json.dumps({"values": values, "read": sorted(read)}, default=plain))
"""


@dataclass
class Run:
    env: dict[str, str]
    observe: dict[str, str]
    values: dict[str, object] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)


def _probe(run: Run) -> Run:
    environment = {key: os.environ[key] for key in PASSED_ON if key in os.environ}
    finished = subprocess.run(
        [sys.executable, "-c", _PROBE],
        input=json.dumps(run.observe),
        env={**environment, **BASE_ENV, **run.env},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT_ROOT,
        check=False,
    )
    assert finished.returncode == 0, f"settings failed to load with {run.env}:\n{finished.stderr}"
    reply = json.loads(finished.stdout)
    run.values, run.read = reply["values"], set(reply["read"])
    return run


def _context_key(context: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(context.items()))


@dataclass
class Results:
    # variable -> (its run, the default run of its context)
    by_variable: dict[str, tuple[Run, Run]]
    former: dict[str, Run]
    all_read: set[str]


@pytest.fixture(scope="module")
def results() -> Results:
    defaults: dict[tuple, Run] = {}
    batches: dict[tuple, Run] = {}
    of_variable: dict[str, tuple[tuple, tuple]] = {}
    for name, case in VARIABLES.items():
        context = _context_key(case.context)
        defaults.setdefault(context, Run(env=dict(case.context), observe={}))
        defaults[context].observe[name] = case.observe
        batch = (context, name if case.alone else "")
        batches.setdefault(batch, Run(env=dict(case.context), observe={}))
        batches[batch].env[name] = case.value
        batches[batch].observe[name] = case.observe
        of_variable[name] = (batch, context)
    former = {label: Run(env=dict(env), observe={label: expression}) for label, env, expression, _ in FORMER_NAME_CASES}
    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(_probe, [*defaults.values(), *batches.values(), *former.values()]))
    runs = [*defaults.values(), *batches.values(), *former.values()]
    return Results(
        by_variable={name: (batches[batch], defaults[context]) for name, (batch, context) in of_variable.items()},
        former=former,
        all_read=set().union(*(run.read for run in runs)),
    )


def _plain(value: object) -> object:
    """The value as it comes back through JSON (tuples become lists, ...)."""
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_each_documented_variable_is_read_through_env_py_and_changes_the_settings(name, results):
    case = VARIABLES[name]
    run, default = results.by_variable[name]
    assert name in run.read, f"{name} was never asked of papertrail/settings/env.py"
    observed = run.values[name]
    assert observed == _plain(case.expected), f"{name}={case.value!r}: {case.observe} is {observed!r}"
    assert observed != default.values[name], f"{name}={case.value!r} left {case.observe} at its default {observed!r}"


@pytest.mark.parametrize("label, env, expression, expected", FORMER_NAME_CASES, ids=[c[0] for c in FORMER_NAME_CASES])
def test_former_names_are_still_accepted_while_the_new_name_is_unset(label, env, expression, expected, results):
    assert results.former[label].values[label] == expected


def test_every_variable_the_settings_read_is_documented(results):
    documented = set(documented_variables()) | set(FORMER_NAMES)
    undocumented = sorted((results.all_read | _names_in_reader_calls()) - documented)
    assert not undocumented, f"read by the settings but not in docs/configuration.md's table: {undocumented}"
