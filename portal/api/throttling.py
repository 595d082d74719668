"""Anonymous (per client address) and signed-in (per user) request rates.

DRF's throttles read their rates once, at import; these read them from the
current settings on every request, so an operator's change (or a test's)
applies without a restart of the import machinery."""

from __future__ import annotations

from django.conf import settings
from rest_framework import throttling
from rest_framework.settings import api_settings


class _CurrentRates:
    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class AnonRateThrottle(_CurrentRates, throttling.AnonRateThrottle):
    scope = "anon"


class UserRateThrottle(_CurrentRates, throttling.UserRateThrottle):
    scope = "user"


class AskUserThrottle(throttling.UserRateThrottle):
    """Questions per signed-in user (PAPERTRAIL_ASK_USER_RATE); a visitor is
    counted by address here too."""

    scope = "ask_user"

    def get_rate(self):
        return settings.PAPERTRAIL_ASK_USER_RATE


class AskAddressThrottle(throttling.AnonRateThrottle):
    """Questions per client address (PAPERTRAIL_ASK_ADDRESS_RATE), signed in or
    not: one address cannot ask through many accounts past it."""

    scope = "ask_address"

    def get_rate(self):
        return settings.PAPERTRAIL_ASK_ADDRESS_RATE

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


ASK_THROTTLES = (AskUserThrottle, AskAddressThrottle)


def ask_wait(request, view=None) -> float | None:
    """None when the request may ask, and then it is counted by user and by
    address; else the seconds to wait, and nothing is counted: a refused
    question must not use up the address's allowance for the next account.
    (DRF's own loop would count the address before the user's refusal.)"""
    throttles = [throttle_class() for throttle_class in ASK_THROTTLES]
    waits = []
    for throttle in throttles:
        throttle.key = throttle.get_cache_key(request, view)
        throttle.history = throttle.cache.get(throttle.key, [])
        throttle.now = throttle.timer()
        while throttle.history and throttle.history[-1] <= throttle.now - throttle.duration:
            throttle.history.pop()
        if len(throttle.history) >= throttle.num_requests:
            waits.append(throttle.wait() or 1.0)
    if waits:
        return max(waits)
    for throttle in throttles:
        throttle.throttle_success()
    return None
