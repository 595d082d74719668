"""Writes of "ask the library": answering a question (retrieval, the cache,
the budget, one structured call through PAPERTRAIL_LLM_ASK's provider, the
citation check) and deleting questions.

A person waits for the answer, so there are no waits here: a 429, a timeout
or an outage is refused at once with what happened, and nothing is stored.
An invalid reply is tried once more (a repair where the provider needs one);
a second is refused, never stored half-valid. The call is paid from its
provider's daily budget, reserved before and settled after.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from digests.ask import prompt
from digests.ask.citations import Given, checked_answer
from digests.ask.retrieval import (
    awaiting_passages,
    context_papers,
    given_sections,
    language_of,
    paper_context,
    retrieve,
    search_text,
    with_passages,
)
from digests.ask.selectors import thread_of
from digests.budget import BudgetSpent, llm_pause, paid_call
from digests.models import Ask
from digests.providers import registry
from digests.providers.base import (
    InvalidReply,
    Provider,
    ProviderError,
    RateLimited,
    Refused,
    Repair,
    StructuredRequest,
    TimedOut,
    Transient,
)
from digests.selectors import pause_state
from harvest.fulltext.tasks import embed_passages
from harvest.models import Paper

logger = logging.getLogger(__name__)

MAX_QUESTION_LENGTH = 1000
EARLIER_EXCHANGES = 3  # of a thread, the most recent, put before a follow-up
# Part of the cache key: a change of prompt or schema answers every question anew.
ASK_PROMPT_VERSION = "ask-2026-12-passages"


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


def _cache_key(provider: str, request: StructuredRequest) -> str:
    """The question, the earlier exchanges and every retrieved paper's text,
    version and reading are in the message: the same key is the same
    question over the same library state, asked of the same model."""
    material = json.dumps(
        [ASK_PROMPT_VERSION, provider, request.model, request.max_tokens, request.user],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()


def _call(provider: Provider, request: StructuredRequest, allowed: set[tuple[str, int]], given: Given):
    """The checked answer, the reply and what both tries cost; refuses on
    any error of the provider, or on a second invalid reply."""
    repair: Repair | None = None
    spent = Decimal("0")
    for _ in range(2):
        try:
            reply, cost = paid_call(provider, request, repair=repair)
        except BudgetSpent as exc:
            raise AskRefused("budget", "today's budget is spent") from exc
        except Refused as exc:
            llm_pause(reason=exc.detail)
            raise AskRefused("paused", exc.detail) from exc
        except RateLimited as exc:
            raise AskRefused("busy", exc.detail, retry_after=exc.retry_after) from exc
        except TimedOut as exc:
            raise AskRefused("timeout", f"no answer within {settings.PAPERTRAIL_ASK_TIMEOUT:.0f} s") from exc
        except Transient as exc:
            code = "busy" if exc.status in (503, 529) else "unavailable" if exc.status is None else "failed"
            raise AskRefused(code, exc.detail, retry_after=exc.retry_after) from exc
        except ProviderError as exc:
            raise AskRefused("failed", exc.detail) from exc
        except InvalidReply as exc:
            spent += exc.cost
            repair, error = Repair(raw=exc.raw, error=str(exc)), str(exc)
            logger.warning("ask: invalid reply from %s: %s", provider.config.name, exc)
            continue
        spent += cost
        try:
            return checked_answer(reply.data, allowed=allowed, given=given), reply, spent
        except InvalidReply as exc:
            repair, error = Repair(raw=reply.raw, error=str(exc)), str(exc)
            logger.warning("ask: invalid reply from %s: %s", provider.config.name, exc)
    raise AskRefused("invalid_reply", error)


def ask_provider() -> Provider:
    return registry.build(registry.task_config("ask"), timeout=settings.PAPERTRAIL_ASK_TIMEOUT)


def ask_answer(*, user: Any, question: Question, provider: Provider | None = None) -> Ask:
    """The answer to a question, stored as the asker's (a visitor's without a
    user): from the cache when the same question met the same library state
    before, else from one structured call. Raises AskRefused, or FilterError
    (digests.ask.retrieval) for a refused filter."""
    started = time.perf_counter()
    text = " ".join(question.text.split())[:MAX_QUESTION_LENGTH]
    language = language_of(text)
    thread = question.thread.thread or question.thread if question.thread is not None else None
    earlier = _earlier(thread)
    searched = search_text(text, [thread.question] if thread is not None else [])
    if question.paper is not None:
        papers = paper_context(question.paper, language=language)
    else:
        found = retrieve(question=searched, filters=question.filters, within=question.within)
        papers = context_papers(found, language=language)
    if not papers:
        raise AskRefused("no_papers", "no paper in the library matches the question and filters")
    papers = with_passages(papers, question=searched, about_paper=question.paper is not None)
    if awaiting_passages(papers):
        # Read but not yet cut into passages (read before passages existed, or
        # the model changed): the embedding queue cuts them for the next question.
        transaction.on_commit(embed_passages.delay)
    provider_name, model = registry.task_choice("ask")
    request = prompt.ask_request(
        model=model,
        max_tokens=settings.PAPERTRAIL_ASK_MAX_TOKENS,
        question=text,
        language=language,
        papers=papers,
        earlier=earlier,
    )
    key = _cache_key(provider_name, request)
    fields = {
        "user": user if getattr(user, "is_authenticated", False) else None,
        "thread": thread,
        "paper": question.paper,
        "question": text,
        "language": language,
        "filters": question.filters,
        "retrieved": [_retrieved(p) for p in papers],
        "cache_key": key,
    }
    earlier_answer = Ask.objects.filter(cache_key=key, status=Ask.Status.DONE).order_by("-id").first()
    if earlier_answer is not None:
        return Ask.objects.create(
            **fields,
            answer=earlier_answer.answer,
            dropped_citations=earlier_answer.dropped_citations,
            provider=earlier_answer.provider,
            model=earlier_answer.model,
            cached=True,
            latency_ms=_ms_since(started),
        )
    config = registry.provider_config(provider_name)
    if not config.configured:
        raise AskRefused("not_configured", f"{registry.missing_key_setting('ask')} is not set")
    paused, reason = pause_state()
    if paused:
        raise AskRefused("paused", reason)
    allowed = {(p.arxiv_id, p.version) for p in papers}
    checked, reply, cost = _call(provider or ask_provider(), request, allowed, given_sections(papers))
    if checked.dropped or checked.dropped_sections:
        logger.warning(
            "ask: removed %d citation(s) outside the retrieved papers, %d section(s) outside the given passages",
            checked.dropped,
            checked.dropped_sections,
        )
    return Ask.objects.create(
        **fields,
        answer=checked.as_json(),
        dropped_citations=checked.dropped,
        provider=provider_name,
        model=reply.model,
        input_tokens=reply.input_tokens,
        output_tokens=reply.output_tokens,
        cost_usd=cost,
        currency=config.currency,
        latency_ms=_ms_since(started),
    )


def _retrieved(paper: prompt.ContextPaper) -> dict[str, Any]:
    """A context paper as stored with the answer: with the passages given, if any."""
    item: dict[str, Any] = {"arxiv_id": paper.arxiv_id, "version": paper.version}
    if paper.passages:
        item["passages"] = [{"position": p.position, "section": p.section} for p in paper.passages]
    return item


def _ms_since(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


@transaction.atomic
def ask_delete(*, user: Any, ask_id: int) -> bool:
    """Delete one of the user's questions (a thread's first question takes
    its follow-ups with it). False when the user has no such question."""
    deleted, _by_model = Ask.objects.filter(pk=ask_id, user=user, user__isnull=False).delete()
    return deleted > 0
