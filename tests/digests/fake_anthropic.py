"""A local stand-in for the Anthropic API, on tests/replay_server.py.

It speaks the shapes of the Messages API (`POST /v1/messages`, a forced
`tool_use` block, `usage`) and of the Message Batches API (create, retrieve,
results as JSON lines), as documented in the API reference and typed in the
`anthropic` SDK (types/message.py, types/messages/message_batch*.py), so the
real SDK runs unchanged against it. Replies queued with `server.queue(...)`
(errors: 429, 529, 401, ...) take precedence over the computed replies.

Token accounting (documented, deterministic; the real tokenizer is not
public): every CJK character counts as one token, every other run of
characters as ceil(length / 4); input tokens are the system prompt, the
tool definitions (as JSON) and the message text, plus the 313-token system
prompt the API adds for tool use with tool_choice "tool" (Anthropic's
tool-use pricing page; Claude 4 family).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.replay_server import ReplayServer, Reply, Request

MESSAGES = "/v1/messages"
BATCHES = "/v1/messages/batches"
TOOL_USE_OVERHEAD_TOKENS = 313
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
_JSON = "application/json"


def count_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    rest = len(_CJK.sub("", text))
    return cjk + math.ceil(rest / 4)


def prompt_tokens(params: dict[str, Any]) -> int:
    text = params.get("system", "") if isinstance(params.get("system"), str) else json.dumps(params.get("system"))
    text += json.dumps(params.get("tools", []), ensure_ascii=False)
    for message in params.get("messages", []):
        content = message["content"]
        text += content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    overhead = TOOL_USE_OVERHEAD_TOKENS if params.get("tools") else 0
    return count_tokens(text) + overhead


def error_reply(status: int, error_type: str, message: str, *, headers: dict | None = None, **details: Any) -> Reply:
    """An error in the API's documented shape: {"type": "error", "error": {...}, "request_id"}."""
    error: dict[str, Any] = {"type": error_type, "message": message}
    if details:
        error["details"] = details
    body = {"type": "error", "error": error, "request_id": "req_fake_error"}
    return Reply(status=status, body=json.dumps(body).encode(), headers=headers or {}, content_type=_JSON)


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if p.strip()]
    return parts or [text.strip() or "No abstract."]


def _chinese(english: str) -> str:
    """Stand-in Chinese of typical length (about one CJK character per two
    and a half English characters), so output accounting is realistic."""
    filler = "本文研究提出方法实验结果表明模型性能显著提升并分析局限"
    size = max(8, len(english) * 2 // 5)
    return (filler * (size // len(filler) + 1))[:size] + "。"


def abstract_of(params: dict[str, Any]) -> str:
    content = params["messages"][0]["content"]
    text = content if isinstance(content, str) else json.dumps(content)
    blocks = re.findall(r"<abstract>(.*?)</abstract>", text, flags=re.S)
    return blocks[-1] if blocks else ""


def default_reading(params: dict[str, Any]) -> dict[str, Any]:
    """A well-formed reading built from the abstract in the request."""
    sentences = _sentences(abstract_of(params).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))

    def pick(i: int) -> str:
        return sentences[min(i, len(sentences) - 1)][:380]

    en = {
        "takeaway": pick(0),
        "problem": pick(0),
        "method": pick(1),
        "results": pick(2),
        "limitations": "The abstract does not state its limitations.",
        "changes": "",
    }
    zh = {key: (_chinese(value) if value else "") for key, value in en.items()}
    return {"zh": zh, "en": en}


class FakeAnthropic(ReplayServer):
    """`reading_for(params)` decides the tool input of computed replies
    (default: `default_reading`); set `raw_content_for` to return other
    content blocks (no tool call, text, ...), or `text_for` for one text block.
    `path`, `error`, `sent` and `spend_limit_replies` are the words the tests
    share with the OpenAI-compatible stand-in (tests/digests/fake_openai.py)."""

    path = MESSAGES
    key_setting = "ANTHROPIC_API_KEY"
    error = staticmethod(error_reply)

    def __init__(self, *, api_key: str = "sk-ant-test-key") -> None:
        super().__init__()
        self.text_for: Callable[[dict[str, Any]], str] | None = None
        self.before_results: Callable[[], None] | None = None
        self.api_key = api_key
        self.reading_for: Callable[[dict[str, Any]], Any] = default_reading
        self.raw_content_for: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
        self.usage_log: list[dict[str, int]] = []
        self.batches: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._state_lock = threading.Lock()
        self.responder(MESSAGES, self._complete)
        self.responder(BATCHES, self._batch_create)

    # --- accounting ------------------------------------------------------------
    def message_requests(self) -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in self.requests_to(MESSAGES)]

    def sent(self) -> list[dict[str, Any]]:
        """Each request as the tests compare them across protocols."""
        out = []
        for params in self.message_requests():
            choice = params.get("tool_choice") or {}
            out.append(
                {
                    "system": params["system"],
                    "user": params["messages"][0]["content"],
                    "messages": params["messages"],
                    "tool": choice.get("name") if choice.get("type") == "tool" else None,
                    "schema": params["tools"][0]["input_schema"] if params.get("tools") else None,
                    "params": params,
                }
            )
        return out

    @staticmethod
    def spend_limit_replies() -> list[Reply]:
        """Anthropic's documented spending-limit replies."""
        return [
            error_reply(
                400,
                "invalid_request_error",
                "You have reached your specified workspace API usage limits. You will regain access on 2026-06-01.",
            ),
            error_reply(429, "rate_limit_error", "Spend limit reached", error_code="enforced_spend_limit_reached"),
        ]

    def _authorised(self, request: Request) -> Reply | None:
        headers = {k.lower(): v for k, v in request.headers.items()}
        # The SDK sends the key as x-api-key or, in recent versions, as a Bearer token.
        presented = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        if presented != self.api_key:
            return error_reply(401, "authentication_error", "invalid x-api-key")
        if not headers.get("anthropic-version"):
            return error_reply(400, "invalid_request_error", "anthropic-version header is required")
        return None

    def message_for(self, params: dict[str, Any]) -> dict[str, Any]:
        """A Message object as the API returns it, with usage accounted."""
        number = next(self._ids)
        if self.raw_content_for is not None:
            content = self.raw_content_for(params)
        elif self.text_for is not None:
            content = [{"type": "text", "text": self.text_for(params)}]
        else:
            tool = params["tool_choice"]["name"] if params.get("tool_choice", {}).get("type") == "tool" else "none"
            content = [
                {"type": "tool_use", "id": f"toolu_fake_{number:06d}", "name": tool, "input": self.reading_for(params)}
            ]
        usage = {
            "input_tokens": prompt_tokens(params),
            "output_tokens": count_tokens(json.dumps(content, ensure_ascii=False)),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        with self._state_lock:
            self.usage_log.append({"input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"]})
        return {
            "id": f"msg_fake_{number:06d}",
            "type": "message",
            "role": "assistant",
            "model": params["model"],
            "content": content,
            "stop_reason": "tool_use" if content and content[0].get("type") == "tool_use" else "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }

    def _complete(self, request: Request) -> Reply:
        refused = self._authorised(request)
        if refused is not None:
            return refused
        params = json.loads(request.body)
        body = json.dumps(self.message_for(params), ensure_ascii=False).encode()
        return Reply(body=body, content_type=_JSON, headers={"request-id": "req_fake_ok"})

    # --- batches ---------------------------------------------------------------
    def _batch_json(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        ended = batch["ended"]
        count = len(batch["requests"])
        counts = {"processing": 0 if ended else count, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if ended:
            for line in batch["results"]:
                counts[line["result"]["type"]] += 1
        created = batch["created_at"]
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": created.isoformat().replace("+00:00", "Z"),
            "expires_at": (created + timedelta(hours=24)).isoformat().replace("+00:00", "Z"),
            "ended_at": datetime.now(UTC).isoformat().replace("+00:00", "Z") if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.url}{BATCHES}/{batch_id}/results" if ended else None,
        }

    def _batch_create(self, request: Request) -> Reply:
        refused = self._authorised(request)
        if refused is not None:
            return refused
        payload = json.loads(request.body)
        batch_id = f"msgbatch_fake_{next(self._ids):06d}"
        with self._state_lock:
            self.batches[batch_id] = {
                "requests": payload["requests"],
                "ended": False,
                "results": [],
                "created_at": datetime.now(UTC).replace(microsecond=0),
            }
        self.responder(f"{BATCHES}/{batch_id}", lambda r, b=batch_id: self._batch_retrieve(r, b))
        self.responder(f"{BATCHES}/{batch_id}/results", lambda r, b=batch_id: self._batch_results(r, b))
        return Reply(body=json.dumps(self._batch_json(batch_id)).encode(), content_type=_JSON)

    def end_batch(self, batch_id: str, *, result_for: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        """Finish processing: each request gets `result_for(request)` or a
        succeeded result computed like a direct reply (usage accounted)."""
        batch = self.batches[batch_id]
        results = []
        for item in batch["requests"]:
            if result_for is not None:
                result = result_for(item)
            else:
                result = {"type": "succeeded", "message": self.message_for(item["params"])}
            results.append({"custom_id": item["custom_id"], "result": result})
        batch["results"] = results
        batch["ended"] = True

    def _batch_retrieve(self, request: Request, batch_id: str) -> Reply:
        refused = self._authorised(request)
        return refused or Reply(body=json.dumps(self._batch_json(batch_id)).encode(), content_type=_JSON)

    def _batch_results(self, request: Request, batch_id: str) -> Reply:
        refused = self._authorised(request)
        if refused is not None:
            return refused
        if self.before_results is not None:
            self.before_results()  # a test's hook: what happens while a client waits for the results
        lines = "\n".join(json.dumps(line, ensure_ascii=False) for line in self.batches[batch_id]["results"])
        return Reply(body=(lines + "\n").encode(), content_type="application/binary")
