"""A channel's secret (its webhook URL, or a Telegram bot's token and chat),
kept as JSON sealed with the site's third-party secret keys
(accounts/shared/secrets.py, PAPERTRAIL_SECRET_KEYS): read back only to send,
never shown, never logged."""

from __future__ import annotations

import json

from accounts.shared.secrets import SecretsUnavailable, decrypt_secret, encrypt_secret, secrets_available

# No key is configured, or no configured key opens a stored secret (a key removed too early).
ChannelsUnavailable = SecretsUnavailable


def channels_available() -> bool:
    return secrets_available()


def seal(secret: dict[str, str]) -> str:
    return encrypt_secret(json.dumps(secret, sort_keys=True))


def unseal(token: str) -> dict[str, str]:
    """The secret; ChannelsUnavailable when no configured key opens it."""
    return json.loads(decrypt_secret(token))


__all__ = ["ChannelsUnavailable", "channels_available", "seal", "unseal"]
