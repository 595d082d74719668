"""What every LLM call pays through, whatever the task and the provider: the
pause switch, one daily budget per provider in its currency (reserved before
a call, settled from the reported token counts after), and `paid_call`,
which does the three around one call."""

from __future__ import annotations

import logging
from datetime import date
from decimal import Decimal

from django.db.models import F
from django.utils import timezone

from digests.models import DailySpend, LLMState
from digests.providers.base import InvalidReply, Provider, Repair, Reply, StructuredRequest
from digests.selectors import budget_day

logger = logging.getLogger(__name__)


class BudgetSpent(Exception):
    """Today's budget of this provider cannot hold the call."""


def llm_pause(*, reason: str) -> None:
    logger.error("LLM work paused: %s", reason)
    LLMState.objects.update_or_create(
        pk=1, defaults={"paused": True, "reason": reason[:2000], "paused_at": timezone.now()}
    )


def llm_resume() -> None:
    LLMState.objects.update_or_create(pk=1, defaults={"paused": False, "reason": "", "paused_at": None})


def budget_reserve(*, amount: Decimal, provider: str, budget: Decimal) -> date | None:
    """Reserve `amount` of today's `budget` of `provider`; the day reserved
    on, or None when the budget cannot hold it (recorded for the sources page)."""
    day = budget_day()
    DailySpend.objects.get_or_create(day=day, provider=provider)
    reserved = DailySpend.objects.filter(day=day, provider=provider, spent_usd__lte=budget - amount).update(
        spent_usd=F("spent_usd") + amount, calls=F("calls") + 1
    )
    if reserved:
        return day
    LLMState.objects.update_or_create(pk=1, defaults={"budget_exhausted_on": day})
    return None


def budget_settle(*, day: date, reserved: Decimal, actual: Decimal, provider: str) -> None:
    """Replace a reservation with the cost the usage reports."""
    if reserved != actual:
        DailySpend.objects.filter(day=day, provider=provider).update(spent_usd=F("spent_usd") - reserved + actual)


def paid_call(provider: Provider, request: StructuredRequest, *, repair: Repair | None = None) -> tuple[Reply, Decimal]:
    """One call paid from its provider's budget: the worst case reserved,
    the call, the reservation replaced by what the token counts cost.
    Raises BudgetSpent, ProviderError, or InvalidReply with `cost` set to
    what the invalid reply cost (a reply that came was paid for)."""
    config = provider.config
    reserved = config.worst_case_cost(request)
    day = budget_reserve(amount=reserved, provider=config.name, budget=config.daily_budget)
    if day is None:
        raise BudgetSpent(f"today's budget of {config.name} is spent")
    try:
        reply = provider.complete(request, repair=repair)
    except InvalidReply as exc:
        paid = exc.paid
        exc.cost = (
            config.cost(model=paid.model, input_tokens=paid.input_tokens, output_tokens=paid.output_tokens)
            if paid is not None
            else Decimal("0")
        )
        budget_settle(day=day, reserved=reserved, actual=exc.cost, provider=config.name)
        raise
    except Exception:  # ProviderError, or anything else: nothing was paid
        budget_settle(day=day, reserved=reserved, actual=Decimal("0"), provider=config.name)
        raise
    cost = config.cost(model=reply.model, input_tokens=reply.input_tokens, output_tokens=reply.output_tokens)
    budget_settle(day=day, reserved=reserved, actual=cost, provider=config.name)
    return reply, cost
