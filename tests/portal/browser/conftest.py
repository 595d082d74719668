"""Browser tests: Debian's chromium driven by Playwright against pytest-django's
live server. Data is stored before the browser starts (Playwright's sync API
runs an event loop in this thread, where Django refuses database calls);
writes while a page is open go through `in_thread`."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
SCREENSHOTS = Path(settings.BASE_DIR) / "test-output" / "screenshots"
LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]"}


@pytest.fixture(autouse=True)
def portal_site(settings) -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@dataclass
class Watch:
    """What a page did that a reader would not want: console errors, uncaught
    exceptions, dialogs (alert/confirm) and requests to other hosts."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    failed_responses: list[str] = field(default_factory=list)

    def assert_clean(self) -> None:
        assert self.console_errors == [], self.failed_responses
        assert self.page_errors == []
        assert self.dialogs == []
        assert self.outside_requests == []


@contextmanager
def browser_page(
    *, viewport: dict | None = None, locale: str = "zh-CN", javascript: bool = True
) -> Iterator[tuple[object, Watch]]:
    """A page in a fresh chromium; a Chinese-language browser unless `locale`
    says otherwise, running scripts unless `javascript` is False."""
    from playwright.sync_api import sync_playwright

    watch = Watch()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(
            viewport=viewport or {"width": 1280, "height": 900}, locale=locale, java_script_enabled=javascript
        )
        page = context.new_page()
        page.on("console", lambda msg: watch.console_errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda error: watch.page_errors.append(str(error)))

        def on_dialog(dialog) -> None:
            watch.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)

        def on_request(request) -> None:
            watch.requests.append(request.url)
            parts = urlsplit(request.url)
            if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOOPBACK:
                watch.outside_requests.append(request.url)

        page.on("request", on_request)
        page.on(
            "response",
            lambda response: (
                watch.failed_responses.append(f"{response.status} {response.url}") if response.status >= 400 else None
            ),
        )
        try:
            yield page, watch
        finally:
            context.close()
            browser.close()


def screenshot(page, name: str, *, full_page: bool = True) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def in_thread(work: Callable[[], object]) -> object:
    """Run ORM work in a thread of its own (no event loop there) and wait."""
    result: dict[str, object] = {}

    def target() -> None:
        try:
            result["value"] = work()
        except BaseException as exc:  # re-raised below, in the test's thread
            result["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result.get("value")
