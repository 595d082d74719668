"""Browser tests: Debian's chromium driven by Playwright against pytest-django's
live server. One chromium serves every test of a test process, each test in a
fresh browser context (its own cookies, storage and cache); starting Playwright
and chromium for each test cost two seconds a test. Playwright's sync API keeps
its event loop running in this thread from then on, where Django would refuse
database calls: DJANGO_ALLOW_ASYNC_UNSAFE lifts that refusal for the test
process (nothing in PaperTrail runs on an event loop). Writes while a page is
open still go through `in_thread`, so that the live server's thread sees them
committed."""

from __future__ import annotations

import os
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
from playwright.sync_api import sync_playwright

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


class SharedChromium:
    """The test process's one chromium, started by the first browser test."""

    def __init__(self) -> None:
        self.playwright = None
        self.browser = None

    def get(self):
        if self.browser is None or not self.browser.is_connected():
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
            if self.playwright is None:
                self.playwright = sync_playwright().start()
            self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        return self.browser

    def stop(self) -> None:
        if self.browser is not None:
            self.browser.close()
        if self.playwright is not None:
            self.playwright.stop()
        self.playwright = self.browser = None


CHROMIUM_OF_THIS_PROCESS = SharedChromium()


@pytest.fixture(scope="session", autouse=True)
def chromium_stopped_at_the_end() -> Iterator[None]:
    yield
    CHROMIUM_OF_THIS_PROCESS.stop()


@contextmanager
def browser_page(
    *, viewport: dict | None = None, locale: str = "zh-CN", javascript: bool = True
) -> Iterator[tuple[object, Watch]]:
    """A page in a fresh browser context; a Chinese-language browser unless
    `locale` says otherwise, running scripts unless `javascript` is False."""
    watch = Watch()
    context = CHROMIUM_OF_THIS_PROCESS.get().new_context(
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
