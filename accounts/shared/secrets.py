"""Third-party secrets at rest (a Zotero API key): encrypted with Fernet
(AES-128-CBC with an HMAC, cryptography's recipe) under the keys of
settings.PAPERTRAIL_SECRET_KEYS through MultiFernet, so the first key
encrypts and any of them decrypts (rotation). The clear text is never logged."""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings

__all__ = ["SecretsUnavailable", "decrypt_secret", "encrypt_secret", "secrets_available"]


class SecretsUnavailable(RuntimeError):
    """No key is configured, or a stored secret no configured key opens."""


def secrets_available() -> bool:
    return bool(settings.PAPERTRAIL_SECRET_KEYS)


def _fernet() -> MultiFernet:
    if not secrets_available():
        raise SecretsUnavailable("PAPERTRAIL_SECRET_KEYS is not set")
    return MultiFernet([Fernet(key.encode()) for key in settings.PAPERTRAIL_SECRET_KEYS])


def encrypt_secret(text: str) -> str:
    return _fernet().encrypt(text.encode()).decode()


def decrypt_secret(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        raise SecretsUnavailable("no configured key opens this secret") from None
