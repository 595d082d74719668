"""An invitation link's token: (group, invite, nonce) signed with the site's
key under its own salt, so that a link cannot be made up or altered; whether
it still holds (expiry, revocation) is the invite row's to say."""

from __future__ import annotations

from django.core import signing

SALT = "papertrail.groups.invite"


def invite_token(*, group_id: int, invite_id: int, nonce: str) -> str:
    """The same link every time it is shown (no time stamp: the row keeps the expiry)."""
    return signing.Signer(salt=SALT).sign_object({"g": group_id, "i": invite_id, "n": nonce})


def invite_token_parts(token: str) -> tuple[int, int, str] | None:
    """(group id, invite id, nonce) of a well-signed token, else None."""
    try:
        found = signing.Signer(salt=SALT).unsign_object(token)
    except signing.BadSignature:
        return None
    if not isinstance(found, dict):
        return None
    group_id, invite_id, nonce = found.get("g"), found.get("i"), found.get("n")
    if not isinstance(group_id, int) or not isinstance(invite_id, int) or not isinstance(nonce, str):
        return None
    return group_id, invite_id, nonce
