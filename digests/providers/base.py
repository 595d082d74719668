"""The interface every provider offers the tasks: one structured reply to a
request (a system prompt, untrusted user text between delimiters, a JSON
schema), with token counts, and errors sorted into the few kinds the tasks
handle differently (wait, back off, pause, fail, invalid reply)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Protocol

_MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class StructuredRequest:
    """One task's call: the reply must be one object of `schema` (sent to the
    API as the forced tool `tool_name`, or asked for in JSON mode)."""

    model: str
    system: str
    user: str
    tool_name: str
    tool_description: str
    schema: dict[str, Any]
    max_tokens: int


@dataclass(frozen=True)
class Reply:
    data: Any  # the structured object, before the task's own checks
    model: str
    input_tokens: int
    output_tokens: int
    raw: str = ""  # what the model wrote, for a repair attempt


@dataclass(frozen=True)
class Repair:
    """The previous try of the same request and what was wrong with it."""

    raw: str
    error: str


@dataclass(frozen=True)
class BatchResult:
    custom_id: str
    reply: Reply | None = None  # when it succeeded
    error_type: str = ""  # else: errored's type, or "canceled" / "expired"
    error_message: str = ""


@dataclass(frozen=True)
class ProviderConfig:
    """A named endpoint from settings: its protocol, key, currency, prices
    per million tokens (input, output) and daily budget in that currency."""

    name: str
    protocol: str  # "anthropic" or "openai"
    api_key: str
    base_url: str | None = None  # None: the SDK's own environment variable
    currency: str = "$"
    daily_budget: Decimal = Decimal("5")
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)
    default_price: tuple[float, float] = (3.0, 15.0)
    structured: str = "tool"  # "tool" (forced call) or "json" (JSON mode, validated, one repair)
    batches: bool = False
    batch_discount: Decimal = Decimal("0.5")

    @property
    def configured(self) -> bool:
        return bool(self.api_key)

    def price(self, model: str) -> tuple[Decimal, Decimal]:
        pair = self.prices.get(model)
        if pair is None:
            pair = next((v for k, v in self.prices.items() if model.startswith(k)), self.default_price)
        return Decimal(str(pair[0])), Decimal(str(pair[1]))

    def cost(self, *, model: str, input_tokens: int, output_tokens: int, batch: bool = False) -> Decimal:
        price_in, price_out = self.price(model)
        cost = (price_in * input_tokens + price_out * output_tokens) / _MILLION
        if batch:
            cost *= self.batch_discount
        return cost.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)

    def worst_case_cost(self, request: StructuredRequest, *, batch: bool = False) -> Decimal:
        """An upper bound reserved before the call: prompt characters / 3
        (generous; English averages about four a token) plus every allowed
        output token."""
        chars = len(request.system) + len(str(request.schema)) + len(request.user)
        return self.cost(
            model=request.model, input_tokens=chars // 3 + 50, output_tokens=request.max_tokens, batch=batch
        )


# --- What can go wrong --------------------------------------------------------------
class ProviderError(Exception):
    """A call that brought no reply. `detail` is safe to store and show."""

    def __init__(self, detail: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(detail)
        self.detail = detail[:500]
        self.status = status
        self.retry_after = retry_after


class RateLimited(ProviderError):
    """429: wait retry-after (or back off), then try again."""


class Transient(ProviderError):
    """5xx, overloaded, a connection error: back off and try again."""


class TimedOut(Transient):
    """No reply within the timeout."""


class Refused(ProviderError):
    """The key is refused (401/403) or a spending limit is reached: retrying
    cannot succeed, so the work pauses until an administrator fixes it."""


class Rejected(ProviderError):
    """Another 4xx: this request fails, the others go on."""


class InvalidReply(ValueError):
    """The reply is not a valid structured reply (no tool call, not JSON,
    schema violation, leaked prompt). `raw` is what the model wrote."""

    def __init__(self, message: str, *, raw: str = "", paid: Reply | None = None) -> None:
        super().__init__(message)
        self.raw = raw
        self.paid = paid  # the call's model and tokens, when a reply came and was paid for
        self.cost = Decimal("0")  # what `paid` cost (set by digests.budget.paid_call)


class Provider(Protocol):
    config: ProviderConfig

    def complete(self, request: StructuredRequest, *, repair: Repair | None = None) -> Reply: ...

    def batch_create(self, requests: Iterable[tuple[str, StructuredRequest]]) -> str: ...

    def batch_ended(self, batch_id: str) -> bool: ...

    def batch_results(
        self, batch_id: str, *, tool_name: str, model: str, schema: dict[str, Any] | None = None
    ) -> Iterator[BatchResult]: ...


SPEND_LIMIT_WORDS = (
    "usage limit",
    "spend limit",
    "credit balance",
    "out of extra usage",
    "billing",
    "insufficient balance",
    "insufficient_quota",
    "exceeded your current quota",
    "arrearage",
)


def error_for(exc: Exception, sdk: Any, *, provider: str) -> ProviderError | InvalidReply:
    """One SDK exception as a provider error. Both SDKs (anthropic, openai)
    share the same exception classes, so one mapping serves both."""
    if isinstance(exc, sdk.APITimeoutError):
        return TimedOut(f"{provider}: no reply within the timeout")
    if isinstance(exc, sdk.APIConnectionError):
        return Transient(f"{provider}: connection error: {exc}")
    if isinstance(exc, sdk.APIResponseValidationError | ValueError):
        return InvalidReply(f"the reply is not a valid {provider} response: {exc}"[:500])
    if not isinstance(exc, sdk.APIStatusError):
        return ProviderError(f"{provider}: {exc}")
    status = exc.status_code
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else body
    kind = str(error.get("type") or "")
    code = str(error.get("code") or getattr(exc, "error_code", None) or "")
    message = str(error.get("message") or exc.message)
    text = f"{status} {kind or code}: {message}".strip()
    retry_after = _retry_after(exc)
    lowered = f"{kind} {code} {message}".lower()
    if status == 402 or kind == "billing_error" or "spend_limit" in code or code == "insufficient_quota":
        return Refused(f"Spending limit reached at {provider} ({text}).", status=status)
    if status in (400, 429) and any(word in lowered for word in SPEND_LIMIT_WORDS):
        return Refused(f"Spending limit reached at {provider} ({text}).", status=status)
    if status in (401, 403):
        return Refused(f"{provider} refused the API key ({text}); fix the key, then resume.", status=status)
    if status == 429:
        return RateLimited(text, status=status, retry_after=retry_after)
    if status >= 500:
        return Transient(text, status=status, retry_after=retry_after)
    return Rejected(text, status=status)


def _retry_after(exc: Any) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
