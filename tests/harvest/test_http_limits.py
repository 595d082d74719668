"""Every reply from a source is read with a cap on its decoded size and an
overall deadline, against a local server that sends an oversized body (with
and without Content-Length), a gzip bomb and a trickle; a run that meets one
fails with a clear error and keeps its checkpoint."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harvest.models import HarvestRun, Source
from harvest.runs import harvest_source
from harvest.sources.arxiv_api import lookup_ids, make_client
from harvest.sources.base import Window
from harvest.sources.http import PoliteSession, TransientError

LIMIT = 1024 * 1024
BOMB = gzip.compress(b"\0" * (50 * LIMIT))  # 50 MiB of zeros in about 50 KiB


class Outside(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # keep the test output quiet
        pass

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        if path == "/small":
            self._send(b"fine", {"Content-Length": "4"})
        elif path == "/declared-big":
            self._send(b"x" * (2 * LIMIT), {"Content-Length": str(2 * LIMIT)})
        elif path == "/undeclared-big":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            for _ in range(32):
                self.wfile.write(b"x" * (LIMIT // 8))
        elif path == "/bomb":
            self._send(BOMB, {"Content-Length": str(len(BOMB)), "Content-Encoding": "gzip"})
        elif path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            for _ in range(100):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.05)  # the remote server's pace, not synchronisation

    def _send(self, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(200)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class OutsideServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # The client hangs up on a refused body mid-send, as it should: not an error here.
        pass


@pytest.fixture
def outside() -> Iterator[str]:
    server = OutsideServer(("127.0.0.1", 0), Outside)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def session(**limits) -> PoliteSession:
    return PoliteSession(delay=0, max_retries=0, timeout=5, **{"max_bytes": LIMIT, "deadline": 30.0, **limits})


def test_a_reply_within_the_limits_is_read_whole(outside):
    assert session().get(f"{outside}/small").content == b"fine"


@pytest.mark.parametrize(
    "path, message",
    [
        ("/declared-big", "2,097,152 bytes, over the limit of 1,048,576"),
        ("/undeclared-big", "over the limit of 1,048,576 bytes (decoded)"),
        ("/bomb", "over the limit of 1,048,576 bytes (decoded)"),
    ],
)
def test_a_reply_over_the_size_limit_is_refused(outside, path, message):
    with pytest.raises(TransientError, match=message.replace("(", r"\(").replace(")", r"\)")):
        session().get(f"{outside}{path}")


def test_a_trickled_reply_is_cut_off_at_the_deadline(outside):
    started = time.monotonic()
    with pytest.raises(TransientError, match="still arriving after 1 s"):
        session(deadline=1.0).get(f"{outside}/trickle")
    # The deadline, not the five-second trickle, ended it.
    assert time.monotonic() - started < 4


def test_a_per_call_limit_overrides_the_sessions(outside):
    with pytest.raises(TransientError, match="over the limit of 2"):
        session().get(f"{outside}/small", max_bytes=2)


@pytest.mark.django_db
def test_a_run_that_meets_a_bomb_fails_clearly_and_keeps_its_checkpoint(outside, settings):
    settings.HF_DAILY_PAPERS_URL = f"{outside}/bomb"
    settings.HF_DAILY_MAX_BYTES = LIMIT
    source = Source.objects.create(slug="hf_daily", name="Hugging Face Daily Papers", checkpoint={"from": "2026-11-30"})
    run = harvest_source(slug="hf_daily", window=Window(date_from=date(2026, 11, 30), date_until=date(2026, 11, 30)))
    assert run.status == HarvestRun.Status.FAILED
    assert "over the limit of 1,048,576 bytes" in run.error
    source.refresh_from_db()
    assert source.checkpoint == {"from": "2026-11-30"}


@pytest.mark.parametrize(
    "path, message",
    [
        ("/undeclared-big", "over the limit of 1,048,576 bytes (decoded)"),
        ("/bomb", "over the limit of 1,048,576 bytes (decoded)"),
        ("/trickle", "still arriving after 1 s"),
    ],
)
def test_the_arxiv_api_clients_replies_are_capped_too(outside, settings, path, message):
    """The arXiv API goes through the `arxiv` package's client, with our session under it."""
    settings.HTTP_MAX_BYTES, settings.HTTP_DEADLINE = LIMIT, 1.0
    client = make_client(base_url=f"{outside}{path}")
    client.num_retries = 0
    with pytest.raises(TransientError, match=message.replace("(", r"\(").replace(")", r"\)")):
        lookup_ids(["2611.00001"], client=client)


@pytest.mark.django_db
def test_an_arxiv_api_check_that_meets_a_bomb_fails_clearly_and_keeps_its_checkpoint(outside, settings):
    settings.ARXIV_API_URL = f"{outside}/bomb"
    settings.HTTP_MAX_BYTES = LIMIT
    checkpoint = {"newest": "2026-11-30T00:00:00+00:00"}
    source = Source.objects.create(slug="arxiv_api", name="arXiv API", checkpoint=checkpoint)
    run = harvest_source(slug="arxiv_api")
    assert run.status == HarvestRun.Status.FAILED
    assert "over the limit of 1,048,576 bytes" in run.error
    source.refresh_from_db()
    assert source.checkpoint == checkpoint
