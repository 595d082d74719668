"""A page's cursor as it travels in a URL: the trail's pages and the ranked
"for you" order (accounts.recommend) pack their places the same way."""

from __future__ import annotations

import base64


class InvalidCursor(ValueError):
    pass


def pack_cursor(text: str) -> str:
    """A cursor's text as it travels in a URL (unpadded URL-safe base64)."""
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def unpack_cursor(cursor: str) -> str:
    """pack_cursor undone; ValueError or UnicodeDecodeError for anything else."""
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
