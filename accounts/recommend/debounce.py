"""The debounce of retraining: one waiting retraining a user at most; and
whether the reader's latest thumbs, picks or saves are learnt yet (a count of
changes against the count the last finished retraining had read)."""

from __future__ import annotations

from django.core.cache import cache

RETRAIN_KEY = "recommend:retrain:{user_id}"
CHANGES_KEY = "recommend:changes:{user_id}"
LEARNT_KEY = "recommend:learnt:{user_id}"


def retrain_claim(user_id: int, *, timeout: int) -> bool:
    """True when no retraining was waiting (an atomic add of a key the task
    removes when it starts): a burst of saves trains once."""
    return bool(cache.add(RETRAIN_KEY.format(user_id=user_id), 1, timeout=timeout))


def retrain_claimed(user_id: int) -> int:
    """The retraining starts: later changes queue another one. Returns the
    count of changes this retraining learns from."""
    cache.delete(RETRAIN_KEY.format(user_id=user_id))
    return int(cache.get(CHANGES_KEY.format(user_id=user_id), 0))


def examples_changed(user_id: int, *, keep: int) -> None:
    """One more change for the next retraining to learn (an atomic increment).
    The count lives `keep` seconds after the last change (as long as the claim),
    so a change whose transaction rolled back is not announced for longer."""
    key = CHANGES_KEY.format(user_id=user_id)
    if cache.add(key, 0, timeout=keep):
        cache.delete(LEARNT_KEY.format(user_id=user_id))  # a fresh count starts from nothing learnt
    cache.incr(key)
    cache.touch(key, keep)


def examples_learnt(user_id: int, changes: int) -> None:
    """A retraining that started at `changes` finished (its scores are written)."""
    key = LEARNT_KEY.format(user_id=user_id)
    cache.set(key, max(changes, int(cache.get(key, 0))), timeout=None)


def retrain_pending(user_id: int) -> bool:
    """True while a change is not learnt yet: the trail says it is updating."""
    keys = [CHANGES_KEY.format(user_id=user_id), LEARNT_KEY.format(user_id=user_id)]
    found = cache.get_many(keys)
    return int(found.get(keys[0], 0)) > int(found.get(keys[1], 0))
