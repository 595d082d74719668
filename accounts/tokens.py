"""The shape of API token secrets: `pt_<prefix>_<secret>`.

The prefix (public, stored) finds the token; the secret is checked against its
stored SHA-256 in constant time. Nothing here logs or stores a secret.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

TOKEN_TAG = "pt"  # noqa: S105 - a public tag, not a secret
PREFIX_BYTES = 6  # 12 hex characters
SECRET_BYTES = 32  # 43 URL-safe characters, 256 bits
_TOKEN = re.compile(r"^pt_([0-9a-f]{12})_([A-Za-z0-9_\-]{43})$")


def new_token_parts() -> tuple[str, str]:
    """(prefix, secret) for a new token."""
    return secrets.token_hex(PREFIX_BYTES), secrets.token_urlsafe(SECRET_BYTES)


def full_token(prefix: str, secret: str) -> str:
    return f"{TOKEN_TAG}_{prefix}_{secret}"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def split_token(raw: str) -> tuple[str, str] | None:
    """(prefix, secret) of a well-formed token, else None."""
    match = _TOKEN.match(raw)
    return (match.group(1), match.group(2)) if match else None


def secret_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), stored_hash)
