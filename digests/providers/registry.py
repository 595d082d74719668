"""Settings to providers: each task's "provider:model" (PAPERTRAIL_LLM_READINGS,
_ASK, _TRANSLATE) and each provider's endpoint, key, currency, prices and
daily budget. Read at call time, so a changed setting takes effect at once."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.utils.module_loading import import_string

from digests.providers.base import Provider, ProviderConfig

TASK_SETTINGS = {
    "readings": "PAPERTRAIL_LLM_READINGS",
    "ask": "PAPERTRAIL_LLM_ASK",
    "translate": "PAPERTRAIL_LLM_TRANSLATE",
}
KEY_SETTINGS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def task_choice(task: str) -> tuple[str, str]:
    """(provider name, model) for `task`."""
    provider, _colon, model = getattr(settings, TASK_SETTINGS[task]).partition(":")
    return provider, model


def provider_config(name: str) -> ProviderConfig:
    if name == "anthropic":
        return ProviderConfig(
            name="anthropic",
            protocol="anthropic",
            api_key=settings.ANTHROPIC_API_KEY,
            currency="$",
            daily_budget=Decimal(str(settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD)),
            prices=dict(settings.PAPERTRAIL_SUMMARY_PRICES),
            default_price=(settings.PAPERTRAIL_SUMMARY_PRICE_INPUT, settings.PAPERTRAIL_SUMMARY_PRICE_OUTPUT),
            batches=True,
        )
    if name == "openai":
        return ProviderConfig(
            name="openai",
            protocol="openai",
            api_key=settings.OPENAI_API_KEY,
            currency=settings.PAPERTRAIL_OPENAI_CURRENCY,
            daily_budget=Decimal(str(settings.PAPERTRAIL_OPENAI_DAILY_BUDGET)),
            default_price=(settings.PAPERTRAIL_OPENAI_PRICE_INPUT, settings.PAPERTRAIL_OPENAI_PRICE_OUTPUT),
            structured=settings.PAPERTRAIL_OPENAI_STRUCTURED,
            batches=settings.PAPERTRAIL_OPENAI_BATCHES,
        )
    endpoint = settings.PAPERTRAIL_LLM_ENDPOINTS[name]
    return ProviderConfig(
        name=name,
        protocol=endpoint["protocol"],
        api_key=endpoint["api_key"],
        base_url=endpoint["base_url"],
        currency=endpoint["currency"],
        daily_budget=Decimal(str(endpoint["daily_budget"])),
        prices=dict(endpoint["prices"]),
        default_price=tuple(endpoint["price"]),
        structured=endpoint["structured"],
        batches=endpoint["batches"],
    )


def provider_names() -> list[str]:
    return ["anthropic", "openai", *settings.PAPERTRAIL_LLM_ENDPOINTS]


def build(config: ProviderConfig, *, timeout: float) -> Provider:
    """The protocol's client, its class named in PAPERTRAIL_LLM_PROTOCOLS and
    loaded on first use: every process would otherwise import both SDKs at start."""
    protocol = "anthropic" if config.protocol == "anthropic" else "openai"
    return import_string(settings.PAPERTRAIL_LLM_PROTOCOLS[protocol])(config, timeout=timeout)


def task_config(task: str) -> ProviderConfig:
    return provider_config(task_choice(task)[0])


def is_configured(task: str) -> bool:
    return task_config(task).configured


def missing_key_setting(task: str) -> str:
    """The variable that would configure `task`'s provider (for the pages' notice)."""
    name = task_choice(task)[0]
    return KEY_SETTINGS.get(name, f"the api_key_env of {name} in PAPERTRAIL_LLM_ENDPOINTS")
