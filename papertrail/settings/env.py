"""The one typed reader of the environment.

Every setting that comes from the environment goes through here, so a bad value
fails loudly at start with the variable's name instead of surfacing later as a
confusing error deep inside a request or a task.
"""

from __future__ import annotations

import json
import os
from datetime import date
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return value.strip() if value is not None else None


def env_renamed(name: str, former: str) -> str:
    """The name to read a renamed variable under: `name`, or the `former` name
    while only that one is set (absent or empty counts as unset). Pass the
    result to the typed reader, so a bad value names the variable it came from."""
    if _raw(name) in (None, "") and _raw(former) not in (None, ""):
        return former
    return name


def env_str(name: str, default: str = "") -> str:
    value = _raw(name)
    return default if value is None or value == "" else value


def env_bool(name: str, default: bool = False) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false, yes/no, on/off)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum {minimum}")
    return number


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    value = _raw(name)
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a number") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} is below the minimum {minimum}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None or value == "":
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_url(name: str, default: str, *, schemes: tuple[str, ...] = ("http", "https")) -> str:
    value = env_str(name, default)
    parsed = urlparse(value)
    if parsed.scheme not in schemes or not parsed.netloc:
        raise ImproperlyConfigured(f"{name}={value!r} is not a URL with scheme {' or '.join(schemes)}")
    return value


def env_cron(name: str, default: str) -> str:
    """A five-field cron expression (minute hour day-of-month month day-of-week)."""
    value = env_str(name, default)
    if len(value.split()) != 5:
        raise ImproperlyConfigured(f"{name}={value!r} is not a five-field cron expression")
    return value


def env_cron_list(name: str, default: str) -> list[str]:
    """One or more cron expressions separated by ";" (a schedule no single
    expression can say, such as every 5 minutes from 20:00 to 21:30)."""
    value = env_str(name, default)
    expressions = [part.strip() for part in value.split(";") if part.strip()]
    if not expressions or any(len(part.split()) != 5 for part in expressions):
        raise ImproperlyConfigured(f"{name}={value!r} is not a list of five-field cron expressions separated by ';'")
    return expressions


def env_date_list(name: str, default: list[str]) -> frozenset[date]:
    """Comma-separated ISO dates (YYYY-MM-DD)."""
    dates = set()
    for item in env_list(name, default):
        try:
            dates.add(date.fromisoformat(item))
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {item!r} is not a date (YYYY-MM-DD)") from None
    return frozenset(dates)


def env_zone(name: str, default: str) -> str:
    """An IANA time zone name, such as America/New_York."""
    value = env_str(name, default)
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(f"{name}={value!r} is not a time zone name") from None
    return value


_ENDPOINT_KEYS = {
    "protocol",
    "base_url",
    "api_key_env",
    "currency",
    "daily_budget",
    "price",
    "prices",
    "structured",
    "batches",
}


def env_json_endpoints(name: str) -> dict[str, dict]:
    """Named LLM endpoints as JSON ({"name": {"protocol": "openai", "base_url":
    ..., "api_key_env": ..., ...}}), each checked, with its key read from the
    variable it names (so no secret sits in this one)."""
    value = env_str(name)
    if not value:
        return {}
    try:
        endpoints = json.loads(value)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} is not JSON: {exc}") from exc
    if not isinstance(endpoints, dict):
        raise ImproperlyConfigured(f"{name} must be a JSON object of named endpoints")
    checked: dict[str, dict] = {}
    for key, endpoint in endpoints.items():
        where = f"{name}[{key!r}]"
        if key in ("anthropic", "openai") or not key.isidentifier():
            raise ImproperlyConfigured(f"{where}: the name must be a new word (anthropic and openai are built in)")
        if not isinstance(endpoint, dict) or set(endpoint) - _ENDPOINT_KEYS:
            raise ImproperlyConfigured(f"{where} must be an object with keys among {sorted(_ENDPOINT_KEYS)}")
        if endpoint.get("protocol", "openai") not in ("openai", "anthropic"):
            raise ImproperlyConfigured(f"{where}: protocol must be openai or anthropic")
        if endpoint.get("structured", "tool") not in ("tool", "json"):
            raise ImproperlyConfigured(f"{where}: structured must be tool or json")
        base_url = endpoint.get("base_url", "")
        parsed = urlparse(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ImproperlyConfigured(f"{where}: base_url {base_url!r} is not an http(s) URL")
        key_env = endpoint.get("api_key_env", "")
        price = endpoint.get("price", [3.0, 15.0])
        try:
            price_pair = (float(price[0]), float(price[1]))
            budget = float(endpoint.get("daily_budget", 5.0))
        except (TypeError, ValueError, IndexError) as exc:
            raise ImproperlyConfigured(f"{where}: price must be [input, output] and daily_budget a number") from exc
        checked[key] = {
            "protocol": endpoint.get("protocol", "openai"),
            "base_url": base_url,
            # A local server (Ollama, vLLM) needs no key; the SDK still wants a word.
            "api_key": env_str(key_env) if key_env else "local",
            "currency": str(endpoint.get("currency", "$")),
            "daily_budget": budget,
            "price": price_pair,
            "prices": {str(k): (float(v[0]), float(v[1])) for k, v in (endpoint.get("prices") or {}).items()},
            "structured": endpoint.get("structured", "tool"),
            # Anthropic's protocol always has Message Batches; an OpenAI-compatible endpoint says so.
            "batches": bool(endpoint.get("batches", endpoint.get("protocol") == "anthropic")),
        }
    return checked
