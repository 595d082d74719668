"""The value types and limits the groups domain shows portal: listed here once.
Other modules import groups through this module, `models`, `selectors`,
`services` and `signals` only (tests/papertrail/test_domain_faces.py)."""

from __future__ import annotations

from accounts.groups.services import INVITE_DAYS, MAX_GROUPS, MAX_NAME, InviteInvalid

__all__ = ["INVITE_DAYS", "MAX_GROUPS", "MAX_NAME", "InviteInvalid"]
