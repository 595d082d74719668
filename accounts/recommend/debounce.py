"""The debounce of retraining: one waiting retraining a user at most."""

from __future__ import annotations

from django.core.cache import cache

RETRAIN_KEY = "recommend:retrain:{user_id}"


def retrain_claim(user_id: int, *, timeout: int) -> bool:
    """True when no retraining was waiting (an atomic add of a key the task
    removes when it starts): a burst of saves trains once."""
    return bool(cache.add(RETRAIN_KEY.format(user_id=user_id), 1, timeout=timeout))


def retrain_claimed(user_id: int) -> None:
    """The retraining starts: later changes queue another one."""
    cache.delete(RETRAIN_KEY.format(user_id=user_id))
