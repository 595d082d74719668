"""A local stand-in for an OpenAI-compatible Chat Completions service
(OpenAI, DeepSeek, Qwen, Kimi, GLM, Ollama, vLLM), on tests/replay_server.py.

It speaks the documented shapes (`POST /v1/chat/completions`; a forced
function call answered in `choices[0].message.tool_calls[0].function` with
`arguments` as a JSON string, as in the real recorded response
tests/fixtures/llm/openai_chat_completion_tool_call.json; JSON mode answered
in `message.content`; `usage.prompt_tokens` / `completion_tokens`; errors as
`{"error": {"message", "type", "param", "code"}}`) and of the Batch API
(`POST /v1/files` with purpose "batch" and a JSONL file of requests,
`POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/files/{id}/content`
with one `{"id", "custom_id", "response": {"status_code", "request_id",
"body"}, "error"}` line per request), so the real `openai` SDK runs
unchanged against it. Like FakeAnthropic it computes each reply from
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
from email.parser import BytesParser
from email.policy import default as default_policy
from typing import Any

from tests.digests.fake_anthropic import count_tokens, default_reading
from tests.replay_server import ReplayServer, Reply, Request

COMPLETIONS = "/v1/chat/completions"
FILES = "/v1/files"
BATCHES = "/v1/batches"
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
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.responder(COMPLETIONS, self._complete)
        self.responder(FILES, self._file_create)
        self.responder(BATCHES, self._batch_create)

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

    # --- the Batch API ---------------------------------------------------------
    def _refused(self, request: Request) -> Reply | None:
        headers = {k.lower(): v for k, v in request.headers.items()}
        if headers.get("authorization", "").removeprefix("Bearer ") != self.api_key:
            return openai_error_reply(401, "authentication_error", "Incorrect API key provided.")
        return None

    def _store_file(self, content: bytes, *, filename: str, purpose: str) -> dict[str, Any]:
        file_id = f"file-fake{next(self._ids):06d}"
        self.files[file_id] = content
        self.responder(f"{FILES}/{file_id}/content", lambda r, f=file_id: Reply(body=self.files[f], content_type=_JSON))
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": 1764892800,
            "filename": filename,
            "purpose": purpose,
        }

    def _file_create(self, request: Request) -> Reply:
        refused = self._refused(request)
        if refused is not None:
            return refused
        content_type = {k.lower(): v for k, v in request.headers.items()}["content-type"]
        form = BytesParser(policy=default_policy).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + request.body
        )
        fields = {part.get_param("name", header="content-disposition"): part for part in form.iter_parts()}
        upload = fields["file"]
        stored = self._store_file(
            upload.get_payload(decode=True),
            filename=upload.get_filename() or "upload.jsonl",
            purpose=fields["purpose"].get_content().strip(),
        )
        return Reply(body=json.dumps(stored).encode(), content_type=_JSON)

    def _batch_json(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        return {
            "id": batch_id,
            "object": "batch",
            "endpoint": COMPLETIONS,
            "errors": None,
            "input_file_id": batch["input_file_id"],
            "completion_window": "24h",
            "status": batch["status"],
            "output_file_id": batch.get("output_file_id"),
            "error_file_id": batch.get("error_file_id"),
            "created_at": 1764892800,
            "in_progress_at": None,
            "expires_at": 1764979200,
            "finalizing_at": None,
            "completed_at": 1764900000 if batch["status"] == "completed" else None,
            "failed_at": None,
            "expired_at": None,
            "cancelling_at": None,
            "cancelled_at": None,
            "request_counts": batch["counts"],
            "metadata": None,
        }

    def _batch_create(self, request: Request) -> Reply:
        refused = self._refused(request)
        if refused is not None:
            return refused
        payload = json.loads(request.body)
        lines = self.files[payload["input_file_id"]].decode().splitlines()
        batch_id = f"batch_fake{next(self._ids):06d}"
        with self._state_lock:
            self.batches[batch_id] = {
                "input_file_id": payload["input_file_id"],
                "requests": [json.loads(line) for line in lines if line.strip()],
                "status": "validating",
                "counts": {"total": len(lines), "completed": 0, "failed": 0},
            }
        self.responder(f"{BATCHES}/{batch_id}", lambda r, b=batch_id: self._refused(r) or self._batch_reply(b))
        return self._batch_reply(batch_id)

    def _batch_reply(self, batch_id: str) -> Reply:
        return Reply(body=json.dumps(self._batch_json(batch_id)).encode(), content_type=_JSON)

    def end_batch(self, batch_id: str, *, error_for: Callable[[dict[str, Any]], Reply | None] | None = None) -> None:
        """Finish the batch: each request's completion computed like a direct
        reply, or, where `error_for(request)` gives an error reply, a line of
        the error file with its status and body."""
        batch = self.batches[batch_id]
        output, errors = [], []
        for number, item in enumerate(batch["requests"], start=1):
            failed = error_for(item) if error_for is not None else None
            if failed is not None:
                status, body = failed.status, json.loads(failed.body)
            else:
                status, body = 200, self.completion_for(item["body"])
            line = {
                "id": f"batch_req_fake{number:06d}",
                "custom_id": item["custom_id"],
                "response": {"status_code": status, "request_id": f"req_fake{number:06d}", "body": body},
                "error": None,
            }
            (errors if failed else output).append(json.dumps(line, ensure_ascii=False))
        for key, lines in (("output_file_id", output), ("error_file_id", errors)):
            if lines:
                content = ("\n".join(lines) + "\n").encode()
                batch[key] = self._store_file(content, filename=f"{batch_id}_{key}.jsonl", purpose="batch_output")["id"]
        batch["counts"] = {"total": len(batch["requests"]), "completed": len(output), "failed": len(errors)}
        batch["status"] = "completed"
