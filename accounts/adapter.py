"""PaperTrail's rules for django-allauth: registration can be closed, links in
mails point at PAPERTRAIL_SITE_URL (never at the Host header of whoever asked
for the mail), failed sign-ins over the limit answer 429
with Retry-After, a successful sign-in forgets that login's failures, and a
reader who follows nothing yet lands on the follows page."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from allauth.account import app_settings as allauth_settings
from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.account.stages import EmailVerificationStage
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.core.internal import ratelimit as allauth_ratelimit
from allauth.core.ratelimit import respond_429
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.shortcuts import resolve_url
from django.utils import translation
from django.utils.translation import gettext_lazy
from rest_framework.throttling import BaseThrottle

from accounts.models import User

# allauth.core.internal.ratelimit (of the pinned version) names the cache keys
# and windows that Retry-After and forgetting a login's failures need.
_APP = "allauth.account"
_LOGIN_FAILED = "login_failed"


@dataclass(frozen=True)
class SiteInfo:
    """What allauth's mail templates read as `current_site`, from the settings
    instead of the request's Host header."""

    name: str
    domain: str


def site_url(path: str) -> str:
    """`path` (with its query) on PAPERTRAIL_SITE_URL."""
    parts = urlsplit(path)
    return settings.SITE_URL + parts.path + (f"?{parts.query}" if parts.query else "")


def _key_rates() -> list[allauth_ratelimit.Rate]:
    return [
        rate
        for rate in allauth_ratelimit.get_rates(app=_APP, action=_LOGIN_FAILED, config=allauth_settings.RATE_LIMITS)
        if rate.per == "key"
    ]


def login_failed_retry_after(request: HttpRequest, key: str) -> int:
    """Seconds until the oldest failure that blocks this address or login leaves its window."""
    now = time.time()
    waits = []
    for rate in allauth_ratelimit.get_rates(app=_APP, action=_LOGIN_FAILED, config=allauth_settings.RATE_LIMITS):
        cache_key = allauth_ratelimit.get_cache_key(request, app=_APP, action=_LOGIN_FAILED, rate=rate, key=key)
        history = [stamp for stamp in cache.get(cache_key, []) if stamp > now - rate.duration]
        if len(history) >= rate.amount:
            waits.append(sorted(history, reverse=True)[rate.amount - 1] + rate.duration - now)
    return max(1, math.ceil(max(waits, default=1)))


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        return settings.SIGNUP_OPEN

    def save_user(self, request: HttpRequest, user, form, commit: bool = True):
        # A reader who signed up in English keeps reading in English: the page's
        # language becomes the account's, which then wins over the cookie.
        active = translation.get_language() or ""
        user.language = User.Language.EN if active.startswith("en") else User.Language.ZH_HANS
        return super().save_user(request, user, form, commit=commit)

    def get_login_redirect_url(self, request: HttpRequest) -> str:
        # A `next` wins (allauth reads it first); without follows the trail has nothing to show.
        if request.user.is_authenticated and not request.user.follows.exists():
            return resolve_url(settings.LOGIN_REDIRECT_URL_WITHOUT_FOLLOWS)
        return super().get_login_redirect_url(request)

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        # allauth names every link it puts in a mail `…_url` (activate_url,
        # password_reset_url, signup_url) and builds it on the request's host.
        links = {
            name: site_url(value)
            for name, value in context.items()
            if name.endswith("_url") and isinstance(value, str) and value.startswith(("http://", "https://"))
        }
        site = SiteInfo(settings.SITE_NAME, urlsplit(settings.SITE_URL).netloc)
        super().send_mail(template_prefix, email, {**context, **links, "current_site": site})

    def get_login_stages(self) -> list[str]:
        return [
            "accounts.adapter.AddressEmailVerificationStage"
            if stage == "allauth.account.stages.EmailVerificationStage"
            else stage
            for stage in super().get_login_stages()
        ]

    def get_client_ip(self, request: HttpRequest) -> str:
        # The API throttles' trusted-proxy rule: PAPERTRAIL_API_NUM_PROXIES hops
        # back in X-Forwarded-For, else REMOTE_ADDR; one rule for every limit.
        return BaseThrottle().get_ident(request)

    def _get_login_attempts_cache_key(self, request: HttpRequest, **credentials: Any) -> str:
        # Failures count per (account, address): guessing from one address
        # slows that address down without locking the owner out everywhere.
        return f"{super()._get_login_attempts_cache_key(request, **credentials)}|{self.get_client_ip(request)}"

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError:
            # allauth shows the limit as a form error; clients and tests need the status.
            key = self._get_login_attempts_cache_key(request, **credentials)
            response = respond_429(request)
            response["Retry-After"] = str(login_failed_retry_after(request, key))
            raise ImmediateHttpResponse(response) from None

    def authenticate(self, request: HttpRequest, **credentials: Any):
        user = super().authenticate(request, **credentials)
        if user is not None:
            # Forget this login's failures; the address keeps its own, so signing
            # in to one's own account cannot reset a guessing run against others.
            key = self._get_login_attempts_cache_key(request, **credentials)
            for rate in _key_rates():
                cache.delete(
                    allauth_ratelimit.get_cache_key(request, app=_APP, action=_LOGIN_FAILED, rate=rate, key=key)
                )
        return user


class AddressEmailVerificationStage(EmailVerificationStage):
    """Mandatory verification proves an address given at sign-up. An account
    with no address at all was made by an operator (the admin, a script) and
    has nothing to verify, and a superuser made by `createsuperuser` (an
    address typed by the operator, never through sign-up) is the operator:
    neither is locked out."""

    def handle(self):
        user = self.login.user  # None for a sign-up with a taken address (no enumeration)
        operator_made = user is not None and not user.emailaddress_set.exists()
        if operator_made and (not user.email or user.is_superuser):
            return None, True
        return super().handle()


class LoginForm(AllauthLoginForm):
    """allauth's sign-in form (username or email in one field) posted as
    `username`, the name the sign-in form always had, so saved passwords and
    scripts keep working."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # One field for both: password managers fill it as a username.
        self.fields["login"].widget.attrs["autocomplete"] = "username"
        self.fields["login"].label = gettext_lazy("Username or email")

    def add_prefix(self, field_name: str) -> str:
        return "username" if field_name == "login" else super().add_prefix(field_name)
