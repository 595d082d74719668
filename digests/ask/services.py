"""Writes of "ask the library": answering a question (retrieval, the cache,
the budget, one Messages call, the citation check) and deleting questions.

A person waits for the answer, so there are no retries and no waits here:
a 429, a timeout or an outage is refused at once with what happened, and
nothing is stored. The call is paid from the guided readings' daily budget
(PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD), reserved before and settled after.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import anthropic
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from digests import llm
from digests.ask import prompt
from digests.ask.retrieval import context_papers, language_of, paper_context, retrieve, search_text
from digests.ask.selectors import thread_of
from digests.models import Ask
from digests.selectors import is_configured, pause_state
from digests.services import budget_reserve, budget_settle, llm_pause
from harvest.models import Paper

logger = logging.getLogger(__name__)

MAX_QUESTION_LENGTH = 1000
EARLIER_EXCHANGES = 3  # of a thread, the most recent, put before a follow-up
# Part of the cache key: a change of prompt or schema answers every question anew.
ASK_PROMPT_VERSION = "ask-2026-12"


class AskRefused(Exception):
    """No answer, and why: `code` is stable (not_configured, paused, budget,
    busy, timeout, unavailable, failed, invalid_reply, no_papers); `retry_after` in seconds
    when the API said so."""

    def __init__(self, code: str, detail: str = "", *, retry_after: float | None = None) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail
        self.retry_after = retry_after


@dataclass(frozen=True)
class Question:
    text: str
    filters: dict[str, Any]
    within: QuerySet[Paper] | None = None  # the scope's papers (follows, research record)
    thread: Ask | None = None
    paper: Paper | None = None


def _earlier(thread: Ask | None) -> list[prompt.Exchange]:
    if thread is None:
        return []
    done = [ask for ask in thread_of(thread) if ask.status == Ask.Status.DONE]
    return [
        prompt.Exchange(question=ask.question, answer=prompt.answer_as_text(ask.answer))
        for ask in done[-EARLIER_EXCHANGES:]
    ]


def _cache_key(params: dict[str, Any]) -> str:
    """The question, the earlier exchanges and every retrieved paper's text,
    version and reading are in the message: the same key is the same
    question over the same library state."""
    material = json.dumps(
        [ASK_PROMPT_VERSION, params["model"], params["max_tokens"], params["messages"]],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()


def _call(client: anthropic.Anthropic, params: dict[str, Any]) -> tuple[Any, Decimal]:
    """One Messages call paid from the daily budget; its cost. Refuses (and
    releases the reservation) on any error of the API."""
    reserved = llm.worst_case_cost(params)
    day = budget_reserve(amount=reserved)
    if day is None:
        raise AskRefused("budget", "today's budget is spent")
    try:
        message = client.messages.create(**params)
    except anthropic.APIStatusError as exc:
        budget_settle(day=day, reserved=reserved, actual=Decimal("0"))
        text = f"{exc.status_code}: {getattr(exc, 'api_message', None) or exc}"[:500]
        if llm.is_spend_limit(exc):
            llm_pause(reason=f"Spending limit reached at Anthropic ({text}).")
            raise AskRefused("paused", text) from exc
        if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
            llm_pause(reason=f"Anthropic refused the API key ({text}); fix ANTHROPIC_API_KEY, then resume.")
            raise AskRefused("paused", text) from exc
        if isinstance(exc, anthropic.RateLimitError) or exc.status_code in (503, 529):
            raise AskRefused("busy", text, retry_after=llm.retry_after_seconds(exc)) from exc
        raise AskRefused("failed", text) from exc
    except anthropic.APITimeoutError as exc:
        budget_settle(day=day, reserved=reserved, actual=Decimal("0"))
        raise AskRefused("timeout", f"no answer within {settings.PAPERTRAIL_ASK_TIMEOUT:.0f} s") from exc
    except anthropic.APIConnectionError as exc:
        budget_settle(day=day, reserved=reserved, actual=Decimal("0"))
        raise AskRefused("unavailable", f"connection error: {exc}"[:500]) from exc
    except (anthropic.APIResponseValidationError, ValueError) as exc:
        budget_settle(day=day, reserved=reserved, actual=Decimal("0"))
        raise AskRefused("invalid_reply", f"the reply is not a valid Message: {exc}"[:500]) from exc
    usage = message.usage
    model = getattr(message, "model", None) or params["model"]
    cost = llm.cost_usd(model=model, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens)
    budget_settle(day=day, reserved=reserved, actual=cost)
    return message, cost


def ask_answer(*, user: Any, question: Question, client: anthropic.Anthropic | None = None) -> Ask:
    """The answer to a question, stored as the asker's (a visitor's without a
    user): from the cache when the same question met the same library state
    before, else from one Messages call. Raises AskRefused, or FilterError
    (digests.ask.retrieval) for a refused filter."""
    started = time.perf_counter()
    text = " ".join(question.text.split())[:MAX_QUESTION_LENGTH]
    language = language_of(text)
    thread = question.thread.thread or question.thread if question.thread is not None else None
    earlier = _earlier(thread)
    if question.paper is not None:
        papers = paper_context(question.paper, language=language)
    else:
        searched = search_text(text, [thread.question] if thread is not None else [])
        found = retrieve(question=searched, filters=question.filters, within=question.within)
        papers = context_papers(found, language=language)
    if not papers:
        raise AskRefused("no_papers", "no paper in the library matches the question and filters")
    params = prompt.request_params(
        model=settings.PAPERTRAIL_SUMMARY_MODEL,
        max_tokens=settings.PAPERTRAIL_ASK_MAX_TOKENS,
        question=text,
        language=language,
        papers=papers,
        earlier=earlier,
    )
    key = _cache_key(params)
    fields = {
        "user": user if getattr(user, "is_authenticated", False) else None,
        "thread": thread,
        "paper": question.paper,
        "question": text,
        "language": language,
        "filters": question.filters,
        "retrieved": [{"arxiv_id": p.arxiv_id, "version": p.version} for p in papers],
        "cache_key": key,
    }
    earlier_answer = Ask.objects.filter(cache_key=key, status=Ask.Status.DONE).order_by("-id").first()
    if earlier_answer is not None:
        return Ask.objects.create(
            **fields,
            answer=earlier_answer.answer,
            dropped_citations=earlier_answer.dropped_citations,
            model=earlier_answer.model,
            cached=True,
            latency_ms=_ms_since(started),
        )
    if not is_configured():
        raise AskRefused("not_configured", "ANTHROPIC_API_KEY is not set")
    paused, reason = pause_state()
    if paused:
        raise AskRefused("paused", reason)
    message, cost = _call(client or llm.client(timeout=settings.PAPERTRAIL_ASK_TIMEOUT), params)
    allowed = {(p.arxiv_id, p.version) for p in papers}
    try:
        checked = prompt.checked_answer(message.content, allowed=allowed)
    except llm.InvalidReply as exc:
        logger.warning("ask: invalid reply: %s", exc)
        raise AskRefused("invalid_reply", str(exc)) from exc
    if checked.dropped:
        logger.warning("ask: removed %d citation(s) outside the retrieved papers", checked.dropped)
    return Ask.objects.create(
        **fields,
        answer=checked.as_json(),
        dropped_citations=checked.dropped,
        model=getattr(message, "model", None) or params["model"],
        input_tokens=message.usage.input_tokens,
        output_tokens=message.usage.output_tokens,
        cost_usd=cost,
        latency_ms=_ms_since(started),
    )


def _ms_since(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


@transaction.atomic
def ask_delete(*, user: Any, ask_id: int) -> bool:
    """Delete one of the user's questions (a thread's first question takes
    its follow-ups with it). False when the user has no such question."""
    deleted, _by_model = Ask.objects.filter(pk=ask_id, user=user, user__isnull=False).delete()
    return deleted > 0
