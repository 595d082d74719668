"""The one HTTP wrapper every source uses.

It sets the timeout and the User-Agent, keeps the politeness delay between
requests to one host, honours `503` with `Retry-After`, retries network errors
and 5xx with a bounded backoff, and turns every failure into a `SourceError`
that says whether it is permanent (403, 4xx, unparsable) or transient.

A reply is streamed with a cap on its decoded size and an overall deadline, so
neither a huge or decompression-bomb body nor one trickled a byte at a time can
hold a worker or its memory: either is a failed check, and the run resumes from
its checkpoint next time.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime

import requests
import urllib3
from django.conf import settings

logger = logging.getLogger(__name__)


class SourceError(Exception):
    """A failure that stopped a request. `transient` errors may succeed later."""

    def __init__(self, message: str, *, transient: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status

    def __reduce__(self):
        # An error raised while a source reads ahead in another process
        # crosses a pipe: rebuilt as the same class with the same fields
        # (the default would call __init__ with the message alone).
        return _rebuild_error, (type(self), self.args, self.__dict__)


def _rebuild_error(cls: type[SourceError], args: tuple, state: dict) -> SourceError:
    error = Exception.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class TransientError(SourceError):
    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message, transient=True, status=status)


class PermanentError(SourceError):
    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message, transient=False, status=status)


class LimitError(TransientError):
    """A reply over the size cap or past the deadline. Transient for a
    harvest page (the next run may find it smaller); a caller fetching one
    fixed file (a paper's PDF) treats it as final."""


def _retry_after_seconds(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdecimal():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# Raw bytes read at a time: small, so that one decompressed chunk stays small
# beside the cap, and a trickled body is checked against the deadline often.
_CHUNK = 16 * 1024


def read_capped(response: requests.Response, *, max_bytes: int, deadline_at: float, deadline: float) -> None:
    """Read the body into `response` (its `.content`), refusing one over
    `max_bytes` decoded or still arriving after the deadline."""
    where = response.url.split("?")[0]
    declared = response.headers.get("Content-Length", "")
    if declared.isdecimal() and "Content-Encoding" not in response.headers and int(declared) > max_bytes:
        raise LimitError(f"reply from {where} is {int(declared):,} bytes, over the limit of {max_bytes:,}")
    chunks: list[bytes] = []
    size = 0
    while chunk := response.raw.read1(_CHUNK, decode_content=True):
        size += len(chunk)
        if size > max_bytes:
            raise LimitError(f"reply from {where} is over the limit of {max_bytes:,} bytes (decoded)")
        if time.monotonic() > deadline_at:
            raise LimitError(f"reply from {where} still arriving after {deadline:.0f} s")
        chunks.append(chunk)
    response._content = b"".join(chunks)


class PoliteSession:
    """One request at a time, at least `delay` seconds apart, with retries.

    `sleep` and `clock` are injectable so that a caller can observe the waits
    it asks for; the real ones are `time.sleep` and `time.monotonic` (this is
    pacing towards a remote server, not synchronisation).
    """

    def __init__(
        self,
        *,
        delay: float | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        backoff_base: float | None = None,
        max_retry_after: float | None = None,
        user_agent: str | None = None,
        max_bytes: int | None = None,
        deadline: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.delay = settings.ARXIV_REQUEST_DELAY if delay is None else delay
        self.timeout = settings.HTTP_TIMEOUT if timeout is None else timeout
        self.max_retries = settings.HTTP_MAX_RETRIES if max_retries is None else max_retries
        self.backoff_base = settings.HTTP_BACKOFF_BASE if backoff_base is None else backoff_base
        self.max_retry_after = settings.HTTP_MAX_RETRY_AFTER if max_retry_after is None else max_retry_after
        self.sleep = sleep
        self.clock = clock
        self.max_bytes = settings.HTTP_MAX_BYTES if max_bytes is None else max_bytes
        self.deadline = settings.HTTP_DEADLINE if deadline is None else deadline
        self.session = requests.Session()
        self.session.headers["User-Agent"] = user_agent or settings.HTTP_USER_AGENT
        self._last_request_at: float | None = None
        self._lock = threading.Lock()

    def get(
        self,
        url: str,
        params: Mapping[str, str] | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        max_bytes: int | None = None,
    ) -> requests.Response:
        """A 200 reply, or a 304 to a conditional request (`headers` with
        If-None-Match or If-Modified-Since), its body read whole: at most
        `max_bytes` decoded (default: the session's)."""
        with self._lock:
            return self._get_with_retries(url, params, headers, max_bytes or self.max_bytes)

    def _pace(self) -> None:
        if self._last_request_at is not None and self.delay > 0:
            wait = self._last_request_at + self.delay - self.clock()
            if wait > 0:
                self.sleep(wait)
        self._last_request_at = self.clock()

    def _backoff(self, attempt: int) -> float:
        return self.backoff_base * (2**attempt) * (1 + random.random() / 2)

    def _get_with_retries(
        self, url: str, params: Mapping[str, str] | None, headers: Mapping[str, str] | None, max_bytes: int
    ) -> requests.Response:
        conditional = bool(headers) and any(name.lower().startswith("if-") for name in headers)
        attempt = 0
        while True:
            self._pace()
            deadline_at = time.monotonic() + self.deadline
            try:
                response = self.session.get(url, params=params, headers=headers, timeout=self.timeout, stream=True)
                try:
                    read_capped(response, max_bytes=max_bytes, deadline_at=deadline_at, deadline=self.deadline)
                finally:
                    response.close()
            except (requests.RequestException, urllib3.exceptions.HTTPError) as exc:
                error: SourceError = TransientError(f"network error: {exc.__class__.__name__}: {exc}")
                wait: float | None = self._backoff(attempt)
            else:
                if response.status_code == 200 or (response.status_code == 304 and conditional):
                    return response
                error, wait = self._classify(response, attempt)
            if wait is None or attempt >= self.max_retries:
                raise error
            attempt += 1
            logger.warning("%s; retry %d of %d in %.1f s", error, attempt, self.max_retries, wait)
            if wait > 0:
                self.sleep(wait)

    def _classify(self, response: requests.Response, attempt: int) -> tuple[SourceError, float | None]:
        """The error for a non-200 reply and how long to wait before retrying
        it (None: do not retry)."""
        status = response.status_code
        reason = f"HTTP {status} from {response.url.split('?')[0]}"
        if status in (429, 503):
            retry_after = _retry_after_seconds(response.headers.get("Retry-After"))
            if retry_after is not None:
                if retry_after > self.max_retry_after:
                    # Transient, but not worth holding a worker for: the run
                    # fails now and the next scheduled run catches up.
                    return TransientError(f"{reason}: Retry-After {retry_after:.0f} s", status=status), None
                return TransientError(f"{reason} with Retry-After {retry_after:.0f} s", status=status), retry_after
            return TransientError(reason, status=status), self._backoff(attempt)
        if status >= 500:
            return TransientError(reason, status=status), self._backoff(attempt)
        return PermanentError(reason, status=status), None
