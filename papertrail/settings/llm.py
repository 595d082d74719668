"""LLM work (the digests app): guided readings, "ask the library" and query
translation, through Anthropic or any OpenAI-compatible provider."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from papertrail.settings.env import env_bool, env_float, env_int, env_json_endpoints, env_str, env_url

ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
# The API's address (a proxy or gateway in front of it), the SDK's own variable
# and default: the SDK reads it too, so it is checked here at start.
ANTHROPIC_BASE_URL = env_url("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
# claude-sonnet-4-5 reaches end of life on 2026-11-30 (the SDK's own table);
# Sonnet 4.6 is current and priced at $3 / $15 per million tokens.
PAPERTRAIL_SUMMARY_MODEL = env_str("PAPERTRAIL_SUMMARY_MODEL", "claude-sonnet-4-6")
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
# Paper text a reading from the full text sends (estimated tokens; the
# section-selection rule and its measurement are in docs/fulltext.md).
PAPERTRAIL_SUMMARY_FULLTEXT_TOKENS = env_int("PAPERTRAIL_SUMMARY_FULLTEXT_TOKENS", 8000, minimum=500)
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

# --- Ask the library (digests/ask/) ------------------------------------------------
# Papers retrieved by the hybrid search and put before the model for one question.
PAPERTRAIL_ASK_TOP_K = env_int("PAPERTRAIL_ASK_TOP_K", 12, minimum=1)
# Off: only signed-in researchers may ask; on: anyone (answers to visitors are
# shown once and kept for the cache and the budget only).
PAPERTRAIL_ASK_ANONYMOUS = env_bool("PAPERTRAIL_ASK_ANONYMOUS", False)
# A person waits for the answer: a shorter wait than a reading's, and fewer tokens.
PAPERTRAIL_ASK_TIMEOUT = env_float("PAPERTRAIL_ASK_TIMEOUT", 60.0, minimum=1.0)
PAPERTRAIL_ASK_MAX_TOKENS = env_int("PAPERTRAIL_ASK_MAX_TOKENS", 2000, minimum=256)
# Questions per signed-in user and per client address ("N/period": s, m, h or d);
# every question counts against both.
PAPERTRAIL_ASK_USER_RATE = env_str("PAPERTRAIL_ASK_USER_RATE", "30/hour")
PAPERTRAIL_ASK_ADDRESS_RATE = env_str("PAPERTRAIL_ASK_ADDRESS_RATE", "60/hour")
_RATE_PERIODS = {"s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day"}
for _name, _rate in (
    ("PAPERTRAIL_ASK_USER_RATE", PAPERTRAIL_ASK_USER_RATE),
    ("PAPERTRAIL_ASK_ADDRESS_RATE", PAPERTRAIL_ASK_ADDRESS_RATE),
):
    _count, _slash, _period = _rate.partition("/")
    if not (_count.isdecimal() and int(_count) > 0 and _period in _RATE_PERIODS):
        raise ImproperlyConfigured(f"{_name}={_rate!r} is not a rate like 30/hour")

# --- Providers (digests/providers/): where each LLM task runs ----------------------
# The provider `openai` is any OpenAI-compatible Chat Completions service; its
# endpoint and key are the SDK's own variables (checked here at start).
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_url("OPENAI_BASE_URL", "https://api.openai.com/v1")
# "tool": a forced function call (OpenAI, DeepSeek, Qwen, Kimi, GLM, vLLM with a
# tool parser); "json": JSON mode, validated here, with one repair attempt (Ollama).
PAPERTRAIL_OPENAI_STRUCTURED = env_str("PAPERTRAIL_OPENAI_STRUCTURED", "tool").lower()
# Prices per million tokens (input, output) and the daily budget, in the
# provider's currency ("$" or "¥"); the defaults overestimate cheap models, so a
# budget stops early rather than late until the real list price is set.
PAPERTRAIL_OPENAI_CURRENCY = env_str("PAPERTRAIL_OPENAI_CURRENCY", "$")
PAPERTRAIL_OPENAI_DAILY_BUDGET = env_float("PAPERTRAIL_OPENAI_DAILY_BUDGET", 5.0, minimum=0.0)
PAPERTRAIL_OPENAI_PRICE_INPUT = env_float("PAPERTRAIL_OPENAI_PRICE_INPUT", 3.0, minimum=0.0)
PAPERTRAIL_OPENAI_PRICE_OUTPUT = env_float("PAPERTRAIL_OPENAI_PRICE_OUTPUT", 15.0, minimum=0.0)
# On only where the endpoint offers OpenAI's Batch API (/v1/files, /v1/batches): OpenAI's own.
PAPERTRAIL_OPENAI_BATCHES = env_bool("PAPERTRAIL_OPENAI_BATCHES", False)
# Further named endpoints, as JSON: {"deepseek": {"protocol": "openai",
# "base_url": "https://api.deepseek.com", "api_key_env": "DEEPSEEK_API_KEY",
# "currency": "¥", "daily_budget": 30, "price": [2, 3], "structured": "tool",
# "batches": false}}.
# Each key is read from the variable it names, never written into this one.
PAPERTRAIL_LLM_ENDPOINTS = env_json_endpoints("PAPERTRAIL_LLM_ENDPOINTS")
# Each protocol's client class, imported when a provider is first built: the
# two SDKs cost about a second and a half of CPU at every start otherwise
# (docs/decisions.md, "Suite time").
PAPERTRAIL_LLM_PROTOCOLS = {
    "anthropic": "digests.providers.anthropic_api.AnthropicProvider",
    "openai": "digests.providers.openai_api.OpenAICompatibleProvider",
}
# Each task's "provider:model". Readings and ask keep PAPERTRAIL_SUMMARY_MODEL
# on Anthropic, so a deployment with only ANTHROPIC_API_KEY runs unchanged.
PAPERTRAIL_LLM_READINGS = env_str("PAPERTRAIL_LLM_READINGS", f"anthropic:{PAPERTRAIL_SUMMARY_MODEL}")
PAPERTRAIL_LLM_ASK = env_str("PAPERTRAIL_LLM_ASK", f"anthropic:{PAPERTRAIL_SUMMARY_MODEL}")
PAPERTRAIL_LLM_TRANSLATE = env_str("PAPERTRAIL_LLM_TRANSLATE", "anthropic:claude-haiku-4-5")
PAPERTRAIL_TRANSLATE_TIMEOUT = env_float("PAPERTRAIL_TRANSLATE_TIMEOUT", 15.0, minimum=1.0)
# A translated query is cached this long (the same words translate the same).
PAPERTRAIL_TRANSLATE_CACHE_SECONDS = env_int("PAPERTRAIL_TRANSLATE_CACHE_SECONDS", 30 * 24 * 3600, minimum=60)
if PAPERTRAIL_OPENAI_STRUCTURED not in ("tool", "json"):
    raise ImproperlyConfigured(f"PAPERTRAIL_OPENAI_STRUCTURED={PAPERTRAIL_OPENAI_STRUCTURED!r} must be tool or json")
for _name in ("PAPERTRAIL_LLM_READINGS", "PAPERTRAIL_LLM_ASK", "PAPERTRAIL_LLM_TRANSLATE"):
    _provider, _colon, _model = globals()[_name].partition(":")
    if not _model or _provider not in {"anthropic", "openai", *PAPERTRAIL_LLM_ENDPOINTS}:
        raise ImproperlyConfigured(
            f"{_name}={globals()[_name]!r} is not provider:model with a provider among "
            f"anthropic, openai{''.join(', ' + n for n in PAPERTRAIL_LLM_ENDPOINTS)}"
        )
