"""A local stand-in for an OpenAI-compatible Chat Completions service
(OpenAI, DeepSeek, Qwen, Kimi, GLM, Ollama, vLLM), on tests/replay_server.py.

It speaks the documented shapes (`POST /v1/chat/completions`; a forced
function call answered in `choices[0].message.tool_calls[0].function` with
`arguments` as a JSON string, as in the real recorded response
tests/fixtures/llm/openai_chat_completion_tool_call.json; JSON mode answered
in `message.content`; `usage.prompt_tokens` / `completion_tokens`; errors as
`{"error": {"message", "type", "param", "code"}}`), so the real `openai` SDK
runs unchanged against it. Like FakeAnthropic it computes each reply from
the request through `reading_for(params)`, where `params` is the request in
the Anthropic stand-in's shape (system, messages without the system one), so
one test's reply function serves both protocols. Token accounting is
FakeAnthropic's (one token per CJK character, else ceil(length / 4)).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from typing import Any

from tests.digests.fake_anthropic import count_tokens, default_reading
from tests.replay_server import ReplayServer, Reply, Request

COMPLETIONS = "/v1/chat/completions"
_JSON = "application/json"
# Anthropic's error types (the tests' common words) as an OpenAI-compatible service writes them.
_ERRORS = {
    "rate_limit_error": ("requests", "rate_limit_exceeded"),
    "overloaded_error": ("server_error", "overloaded"),
    "api_error": ("server_error", None),
    "authentication_error": ("invalid_request_error", "invalid_api_key"),
    "permission_error": ("invalid_request_error", "permission_denied"),
    "invalid_request_error": ("invalid_request_error", None),
}


def openai_error_reply(status: int, error_type: str, message: str, *, headers: dict | None = None, code=None) -> Reply:
    kind, default_code = _ERRORS.get(error_type, (error_type, None))
    body = {"error": {"message": message, "type": kind, "param": None, "code": code or default_code}}
    return Reply(status=status, body=json.dumps(body).encode(), headers=headers or {}, content_type=_JSON)


def as_common_params(params: dict[str, Any]) -> dict[str, Any]:
    """The request in the Anthropic stand-in's shape, for reply functions."""
    messages = params.get("messages", [])
    system = "\n".join(m["content"] for m in messages if m["role"] == "system")
    return {
        "model": params.get("model"),
        "max_tokens": params.get("max_tokens"),
        "system": system,
        "messages": [m for m in messages if m["role"] != "system"],
    }


class FakeOpenAI(ReplayServer):
    path = COMPLETIONS
    key_setting = "OPENAI_API_KEY"
    error = staticmethod(openai_error_reply)

    def __init__(self, *, api_key: str = "sk-openai-test-key") -> None:
        super().__init__()
        self.api_key = api_key
        self.reading_for: Callable[[dict[str, Any]], Any] = default_reading
        self.text_for: Callable[[dict[str, Any]], str] | None = None
        self.usage_log: list[dict[str, int]] = []
        self._ids = itertools.count(1)
        self._state_lock = threading.Lock()
        self.responder(COMPLETIONS, self._complete)

    def requests_json(self) -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in self.requests_to(COMPLETIONS)]

    def sent(self) -> list[dict[str, Any]]:
        """Each request as the tests compare them across protocols."""
        out = []
        for params in self.requests_json():
            common = as_common_params(params)
            forced = (params.get("tool_choice") or {}).get("function", {}).get("name") if params.get("tools") else None
            schema = params["tools"][0]["function"]["parameters"] if params.get("tools") else None
            out.append(
                {
                    "system": common["system"],
                    "user": common["messages"][0]["content"],
                    "messages": common["messages"],
                    "tool": forced,
                    "schema": schema,
                    "params": params,
                }
            )
        return out

    @staticmethod
    def spend_limit_replies() -> list[Reply]:
        """OpenAI's documented quota reply and DeepSeek's documented 402."""
        return [
            openai_error_reply(
                429,
                "insufficient_quota",
                "You exceeded your current quota, please check your plan and billing details.",
                code="insufficient_quota",
            ),
            openai_error_reply(402, "unknown_error", "Insufficient Balance"),
        ]

    def completion_for(self, params: dict[str, Any]) -> dict[str, Any]:
        number = next(self._ids)
        common = as_common_params(params)
        forced = (params.get("tool_choice") or {}).get("function", {}).get("name") if params.get("tools") else None
        if self.text_for is not None:
            message = {"role": "assistant", "content": self.text_for(common), "tool_calls": None}
            written, finish = message["content"], "stop"
        elif forced:
            arguments = json.dumps(self.reading_for(common), ensure_ascii=False)
            call = {
                "id": f"call_fake_{number:06d}",
                "type": "function",
                "function": {"name": forced, "arguments": arguments},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            written, finish = arguments, "tool_calls"
        else:  # JSON mode, or no structure asked for
            written = json.dumps(self.reading_for(common), ensure_ascii=False)
            message = {"role": "assistant", "content": written, "tool_calls": None}
            finish = "stop"
        message.update({"refusal": None, "annotations": [], "audio": None, "function_call": None})
        prompt = json.dumps(params.get("messages", []), ensure_ascii=False) + json.dumps(params.get("tools", []))
        usage = {"prompt_tokens": count_tokens(prompt), "completion_tokens": count_tokens(written)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        with self._state_lock:
            self.usage_log.append({"input_tokens": usage["prompt_tokens"], "output_tokens": usage["completion_tokens"]})
        return {
            "id": f"chatcmpl-fake{number:06d}",
            "object": "chat.completion",
            "created": 1764892800 + number,
            "model": params["model"],
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "service_tier": "default",
            "system_fingerprint": "fp_fake",
            "usage": usage,
        }

    def _complete(self, request: Request) -> Reply:
        headers = {k.lower(): v for k, v in request.headers.items()}
        if headers.get("authorization", "").removeprefix("Bearer ") != self.api_key:
            return openai_error_reply(401, "authentication_error", "Incorrect API key provided.")
        params = json.loads(request.body)
        body = json.dumps(self.completion_for(params), ensure_ascii=False).encode()
        return Reply(body=body, content_type=_JSON, headers={"x-request-id": "req_fake_ok"})
