"""Anonymous (per client address) and signed-in (per user) request rates.

DRF's throttles read their rates once, at import; these read them from the
current settings on every request, so an operator's change (or a test's)
applies without a restart of the import machinery."""

from __future__ import annotations

from rest_framework import throttling
from rest_framework.settings import api_settings


class _CurrentRates:
    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class AnonRateThrottle(_CurrentRates, throttling.AnonRateThrottle):
    scope = "anon"


class UserRateThrottle(_CurrentRates, throttling.UserRateThrottle):
    scope = "user"
