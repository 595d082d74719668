"""Chinese first: a page's language is the reader's explicit choice (the
language switch's cookie) or Simplified Chinese, never a guess from the
browser's Accept-Language, which for many Chinese researchers says English
because of the operating system they happen to use. API clients state what
they want, so under /api/ Accept-Language is honoured, and a client that
states nothing (a script, curl) gets English, the language of its docs.
A signed-in reader's saved language and time zone apply to their pages."""

from __future__ import annotations

from collections.abc import Callable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.locale import LocaleMiddleware
from django.urls import reverse
from django.utils import timezone, translation

from accounts.services import user_preferences_update
from harvest.clock import display_zone, reading_in


def _accepted_language(header: str) -> str:
    """The first language of an Accept-Language header the site speaks; English otherwise."""
    for code, _quality in translation.trans_real.parse_accept_lang_header(header):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return "en"


class ChineseFirstLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        if request.path_info.startswith("/api/"):
            language = _accepted_language(request.headers.get("Accept-Language", ""))
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
            return
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        language = chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()


class UserPreferencesMiddleware:
    """A signed-in reader's own language and time zone, saved on their account,
    for every page; everyone else keeps Chinese first and Beijing time. The API
    keeps its own rule (Accept-Language, times in UTC)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or request.path_info.startswith("/api/"):
            return self.get_response(request)
        if user.language in dict(settings.LANGUAGES):
            translation.activate(user.language)
            request.LANGUAGE_CODE = user.language
        try:
            zone = ZoneInfo(user.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            zone = display_zone()
        timezone.activate(zone)
        try:
            with reading_in(zone):
                response = self.get_response(request)
        finally:
            timezone.deactivate()
        self._remember_switch(request, response)
        return response

    @staticmethod
    def _remember_switch(request: HttpRequest, response: HttpResponse) -> None:
        """The header's language switch, used while signed in, changes the saved
        language too; otherwise the saved one would win on the next page."""
        if request.method != "POST" or request.path_info != reverse("set_language"):
            return
        chosen = response.cookies.get(settings.LANGUAGE_COOKIE_NAME)
        if chosen is not None and chosen.value in dict(settings.LANGUAGES) and chosen.value != request.user.language:
            user_preferences_update(user=request.user, language=chosen.value, time_zone=request.user.time_zone)
