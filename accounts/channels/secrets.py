"""A channel's secret (its webhook URL, or a Telegram bot's token and chat)
encrypted at rest with MultiFernet over settings.CHANNEL_SECRET_KEYS: read
back only to send, never shown, never logged."""

from __future__ import annotations

import json

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class ChannelsUnavailable(Exception):
    """No key is configured (PAPERTRAIL_CHANNEL_KEYS): channels cannot be stored."""


def _fernet() -> MultiFernet:
    keys = settings.CHANNEL_SECRET_KEYS
    if not keys:
        raise ChannelsUnavailable("PAPERTRAIL_CHANNEL_KEYS is not set")
    return MultiFernet([Fernet(key.encode()) for key in keys])


def channels_available() -> bool:
    return bool(settings.CHANNEL_SECRET_KEYS)


def seal(secret: dict[str, str]) -> str:
    return _fernet().encrypt(json.dumps(secret, sort_keys=True).encode()).decode()


def unseal(token: str) -> dict[str, str]:
    """The secret; InvalidToken when no configured key opens it (a key removed too early)."""
    return json.loads(_fernet().decrypt(token.encode()))


__all__ = ["ChannelsUnavailable", "InvalidToken", "channels_available", "seal", "unseal"]
