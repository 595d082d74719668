"""Replaying the recorded arXiv API replies (tests/fixtures/arxiv_api/*.json).

Each recorded file is `{"url", "status_code", "body"}` for one real request.
The replay answers a request with the recorded reply whose query
(`search_query`, `id_list`, `start`, `max_results`, `sortBy`, `sortOrder`)
is exactly the one asked, and with a 404 otherwise, so a client that asks for
anything else than what was recorded fails visibly.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from tests.replay_server import FIXTURES, ReplayServer, Reply, Request

PATH = "/api/query"
_KEYS = ("search_query", "id_list", "start", "max_results", "sortBy", "sortOrder")


def _key(query: dict[str, list[str]]) -> tuple[str, ...]:
    return tuple((query.get(name) or [""])[0] for name in _KEYS)


def recorded() -> dict[tuple[str, ...], tuple[int, bytes]]:
    replies = {}
    for path in sorted((FIXTURES / "arxiv_api").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        query = parse_qs(urlsplit(data["url"]).query, keep_blank_values=True)
        replies[_key(query)] = (data["status_code"], data["body"].encode("utf-8"))
    return replies


def body_of(name_prefix: str) -> bytes:
    """The Atom body of the recorded file whose name starts with this."""
    path = next((FIXTURES / "arxiv_api").glob(f"{name_prefix}*.json"))
    return json.loads(path.read_text(encoding="utf-8"))["body"].encode("utf-8")


def serve_recorded(server: ReplayServer) -> str:
    """Serve every recorded reply on PATH; returns the API URL to configure."""
    replies = recorded()

    def respond(request: Request) -> Reply:
        found = replies.get(_key(request.query))
        if found is None:
            return Reply(status=404, body=b"no recorded reply for this query", content_type="text/plain")
        status, body = found
        return Reply(status=status, body=body, content_type="application/atom+xml; charset=utf-8")

    server.responder(PATH, respond)
    return f"{server.url}{PATH}"
