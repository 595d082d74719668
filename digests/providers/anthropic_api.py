"""Anthropic's Messages API: the structured reply is one forced tool call
whose input the API validates against a strict schema; backlogs go through
the Message Batches API."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import anthropic

from digests.providers.base import (
    BatchResult,
    InvalidReply,
    ProviderConfig,
    Repair,
    Reply,
    StructuredRequest,
    error_for,
)


class AnthropicProvider:
    def __init__(self, config: ProviderConfig, *, timeout: float) -> None:
        self.config = config
        # The SDK's retries are off: digests/services.py retries with its own
        # rules (retry-after, bounded backoff, pause on auth errors).
        self.client = anthropic.Anthropic(
            api_key=config.api_key, base_url=config.base_url, timeout=timeout, max_retries=0
        )

    def params(self, request: StructuredRequest) -> dict[str, Any]:
        """The Messages API parameters (also a batch request's `params`)."""
        return {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "system": request.system,
            "tools": [
                {
                    "name": request.tool_name,
                    "description": request.tool_description,
                    "input_schema": request.schema,
                    "strict": True,
                }
            ],
            "tool_choice": {"type": "tool", "name": request.tool_name},
            "messages": [{"role": "user", "content": request.user}],
        }

    def complete(self, request: StructuredRequest, *, repair: Repair | None = None) -> Reply:
        """One call; a repair is a fresh forced call (the tool's schema binds it)."""
        try:
            message = self.client.messages.create(**self.params(request))
        except (anthropic.APIError, ValueError) as exc:
            raise error_for(exc, anthropic, provider=self.config.name) from exc
        return self._reply(message, request.tool_name, request.model)

    def _reply(self, message: Any, tool_name: str, model: str) -> Reply:
        usage = message.usage
        reply_model = getattr(message, "model", None) or model
        for block in message.content or []:
            if getattr(block, "type", None) == "tool_use" and getattr(block, "name", None) == tool_name:
                return Reply(
                    data=block.input,
                    model=reply_model,
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                    raw=json.dumps(block.input, ensure_ascii=False, default=str),
                )
        raise InvalidReply(
            f"the reply holds no {tool_name} tool call",
            raw=" ".join(getattr(b, "text", "") for b in message.content or []),
            paid=Reply(None, reply_model, usage.input_tokens, usage.output_tokens),
        )

    # --- Message Batches ----------------------------------------------------------
    def batch_create(self, requests: Iterable[tuple[str, StructuredRequest]]) -> str:
        items = [{"custom_id": custom_id, "params": self.params(request)} for custom_id, request in requests]
        try:
            return self.client.messages.batches.create(requests=items).id
        except (anthropic.APIError, ValueError) as exc:
            raise error_for(exc, anthropic, provider=self.config.name) from exc

    def batch_ended(self, batch_id: str) -> bool:
        try:
            return self.client.messages.batches.retrieve(batch_id).processing_status == "ended"
        except (anthropic.APIError, ValueError) as exc:
            raise error_for(exc, anthropic, provider=self.config.name) from exc

    def batch_results(
        self, batch_id: str, *, tool_name: str = "", model: str = "", schema: dict[str, Any] | None = None
    ) -> Iterator[BatchResult]:
        try:
            results = self.client.messages.batches.results(batch_id)
        except (anthropic.APIError, ValueError) as exc:
            raise error_for(exc, anthropic, provider=self.config.name) from exc
        for item in results:
            result = item.result
            if result.type == "succeeded":
                try:
                    reply = self._reply(result.message, tool_name, model)
                except InvalidReply as exc:
                    yield BatchResult(
                        custom_id=item.custom_id, error_type="invalid_reply", error_message=str(exc), reply=exc.paid
                    )
                    continue
                yield BatchResult(custom_id=item.custom_id, reply=reply)
            elif result.type == "errored":
                error = result.error.error
                yield BatchResult(custom_id=item.custom_id, error_type=error.type, error_message=error.message)
            else:
                yield BatchResult(custom_id=item.custom_id, error_type=result.type)
