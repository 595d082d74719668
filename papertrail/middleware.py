"""Chinese first: a page's language is the reader's explicit choice (the
language switch's cookie) or Simplified Chinese, never a guess from the
browser's Accept-Language, which for many Chinese researchers says English
because of the operating system they happen to use. API clients state what
they want, so under /api/ Accept-Language is honoured (Chinese otherwise)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


class ChineseFirstLocaleMiddleware(LocaleMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        if request.path_info.startswith("/api/"):
            super().process_request(request)
            return
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        language = chosen if chosen in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
