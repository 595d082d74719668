"""A local HTTP server that replays recorded responses.

The outside world (arXiv, Hugging Face, Anthropic) is faked here, at the HTTP
level, so the project's real clients run unchanged against it. A test queues
responses per path; every request is logged so the test can assert on what
the client asked for (query parameters, headers, pacing).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/xml; charset=utf-8"
    # Called before the reply is sent; a test can block here to act "between
    # pages" (kill a process, inspect the database) at a precise moment.
    before_send: Callable[[], None] | None = None
    # A body sent chunk by chunk as the callable yields it (a page that never
    # ends, a huge file), with `declared_length` as its Content-Length, or none
    # (the connection closes when the body ends). The client hanging up ends it.
    stream: Callable[[], Iterator[bytes]] | None = None
    declared_length: int | None = None


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


class ReplayServer:
    """`server.queue("/oai", Reply(...))` adds replies served in order for that
    path; `server.default(path, reply)` answers once the queue is empty;
    `server.responder(path, fn)` computes a reply from the request."""

    def __init__(self) -> None:
        self._queues: dict[str, deque[Reply]] = {}
        self._defaults: dict[str, Reply] = {}
        self._responders: dict[str, Callable[[Request], Reply]] = {}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ReplayServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def queue(self, path: str, *replies: Reply) -> None:
        with self._lock:
            self._queues.setdefault(path, deque()).extend(replies)

    def default(self, path: str, reply: Reply) -> None:
        self._defaults[path] = reply

    def responder(self, path: str, fn: Callable[[Request], Reply]) -> None:
        self._responders[path] = fn

    def requests_to(self, path: str) -> list[Request]:
        return [r for r in self.requests if r.path == path]

    def _next_reply(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            pending = self._queues.get(request.path)
            if pending:
                return pending.popleft()
        if request.path in self._responders:
            return self._responders[request.path](request)
        if request.path in self._defaults:
            return self._defaults[request.path]
        return Reply(status=404, body=b"no recorded response for this path", content_type="text/plain")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def _serve(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                query = parse_qs(parts.query, keep_blank_values=True)
                if self.command == "POST" and self.headers.get("Content-Type", "").startswith(
                    "application/x-www-form-urlencoded"
                ):
                    query.update(parse_qs(body.decode(), keep_blank_values=True))
                request = Request(self.command, parts.path, query, dict(self.headers.items()), body)
                reply = server._next_reply(request)
                if reply.before_send is not None:
                    reply.before_send()
                if reply.stream is not None:
                    self._stream(reply)
                    return
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

            def _stream(self, reply: Reply) -> None:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                if reply.declared_length is not None:
                    self.send_header("Content-Length", str(reply.declared_length))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    for chunk in reply.stream():
                        self.wfile.write(chunk)
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            do_GET = _serve
            do_POST = _serve

        return Handler


def fixture_bytes(relative: str) -> bytes:
    return (FIXTURES / relative).read_bytes()
