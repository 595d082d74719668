"""The quality check an administrator runs before switching providers
(`python manage.py check_llm`): a small fixed set of real recorded papers
(digests/check_papers.json) and, for "ask", one question in each language,
sent through a provider and model as the task would send them; the report
is the same for every provider: valid structured replies, citations among
the papers given, the share of sentences in the expected language, latency
and cost. Paid from the provider's budget like any call; the last report of
each task, provider and model is kept for the admin (LLMState.checks)."""

from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from digests import llm
from digests.ask import prompt
from digests.ask.citations import checked_answer
from digests.budget import BudgetSpent, paid_call
from digests.models import LLMState
from digests.providers import registry
from digests.providers.base import InvalidReply, Provider, ProviderError

CHECK_PAPERS = Path(__file__).resolve().parent / "check_papers.json"
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


@cache
def check_material() -> dict[str, Any]:
    return json.loads(CHECK_PAPERS.read_text(encoding="utf-8"))


@dataclass
class CheckReport:
    task: str
    provider: str
    model: str
    currency: str
    requests: int = 0
    valid: int = 0  # structured replies that passed every check of the task
    citations: int = 0  # ask: citations the replies made
    citations_valid: int = 0  # ask: of them, to a paper and version that was given
    sentences: int = 0
    sentences_in_language: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    cost: Decimal = Decimal("0")
    errors: list[str] = field(default_factory=list)
    checked_at: str = ""

    def lines(self) -> list[str]:
        share = self.sentences_in_language / self.sentences if self.sentences else 0.0
        latency = sorted(self.latencies_ms)
        p50 = statistics.median(latency) if latency else 0.0
        out = [
            f"{self.task} on {self.provider}:{self.model}",
            f"  valid structured replies: {self.valid}/{self.requests}",
            f"  sentences in the expected language: {self.sentences_in_language}/{self.sentences} ({share:.0%})",
            f"  latency: median {p50:.0f} ms, max {max(latency, default=0.0):.0f} ms",
            f"  cost: {self.currency}{self.cost:.6f}",
        ]
        if self.task == "ask":
            out.insert(2, f"  citations among the papers given: {self.citations_valid}/{self.citations}")
        out += [f"  error: {error}" for error in self.errors]
        return out

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["cost"] = str(self.cost)
        return data


def report_lines(data: dict[str, Any]) -> list[str]:
    """A stored report (CheckReport.as_json) as the command printed it."""
    fields = {**data, "cost": Decimal(data.get("cost", "0"))}
    return [f"checked {data.get('checked_at', '')}", *CheckReport(**fields).lines()]


def _count_sentences(report: CheckReport, text: str, lang: str) -> None:
    for sentence in (s.strip() for s in _SENTENCE_END.split(text)):
        if len(sentence) > 1:
            report.sentences += 1
            report.sentences_in_language += llm.in_language(sentence, lang)


def _call(report: CheckReport, provider: Provider, request) -> Any:
    """One paid call, timed; the reply, or None with the error recorded."""
    report.requests += 1
    started = time.perf_counter()
    try:
        reply, cost = paid_call(provider, request)
    except InvalidReply as exc:
        report.cost += exc.cost
        report.errors.append(f"invalid reply: {exc}"[:300])
        return None
    except (BudgetSpent, ProviderError) as exc:
        report.errors.append(str(exc)[:300])
        return None
    finally:
        report.latencies_ms.append((time.perf_counter() - started) * 1000)
    report.cost += cost
    return reply


def check_readings(provider: Provider, model: str) -> CheckReport:
    report = CheckReport("readings", provider.config.name, model, provider.config.currency)
    for paper in check_material()["papers"]:
        text = llm.PaperText(title=paper["title"], abstract=paper["abstract"], comments=paper["comments"])
        request = llm.reading_request(
            model=model, arxiv_id=paper["arxiv_id"], number=paper["version"], current=text, previous=None
        )
        reply = _call(report, provider, request)
        if reply is None:
            continue
        for lang in llm.LANGUAGES:
            sections = reply.data.get(lang) if isinstance(reply.data, dict) else None
            for value in (sections or {}).values() if isinstance(sections, dict) else []:
                _count_sentences(report, str(value), lang)
        try:
            llm.validated_reading(reply.data, abstracts=[paper["abstract"]])
        except InvalidReply as exc:
            report.errors.append(f"{paper['arxiv_id']}: {exc}"[:300])
            continue
        report.valid += 1
    return report


def check_ask(provider: Provider, model: str) -> CheckReport:
    report = CheckReport("ask", provider.config.name, model, provider.config.currency)
    material = check_material()
    papers = [
        prompt.ContextPaper(arxiv_id=p["arxiv_id"], version=p["version"], title=p["title"], abstract=p["abstract"])
        for p in material["papers"]
    ]
    allowed = {(p.arxiv_id, p.version) for p in papers}
    for language, question in material["questions"].items():
        request = prompt.ask_request(
            model=model,
            max_tokens=settings.PAPERTRAIL_ASK_MAX_TOKENS,
            question=question,
            language=language,
            papers=papers,
            earlier=[],
        )
        reply = _call(report, provider, request)
        if reply is None:
            continue
        data = reply.data if isinstance(reply.data, dict) else {}
        for point in data.get("points") or []:
            for citation in point.get("citations") or [] if isinstance(point, dict) else []:
                report.citations += 1
                key = (str(citation.get("arxiv_id", "")).removeprefix("arXiv:"), citation.get("version"))
                report.citations_valid += key in allowed
        texts = [str(data.get("synthesis", ""))] + [str(p.get("text", "")) for p in data.get("points") or []]
        for text in texts:
            _count_sentences(report, re.sub(r"\[[^\]]*\]", "", text), language)
        try:
            checked_answer(reply.data, allowed=allowed)
        except InvalidReply as exc:
            report.errors.append(f"{language}: {exc}"[:300])
            continue
        report.valid += 1
    return report


def llm_check(*, task: str, provider_name: str | None = None, model: str | None = None) -> CheckReport:
    """Run the check of `task` (readings or ask) on a provider and model
    (default: the task's own) and keep its report for the admin."""
    chosen, chosen_model = registry.task_choice(task)
    name = provider_name or chosen
    model = model or chosen_model
    config = registry.provider_config(name)
    timeout = settings.PAPERTRAIL_ASK_TIMEOUT if task == "ask" else settings.PAPERTRAIL_SUMMARY_TIMEOUT
    provider = registry.build(config, timeout=timeout)
    report = check_ask(provider, model) if task == "ask" else check_readings(provider, model)
    report.checked_at = timezone.now().isoformat()
    state, _created = LLMState.objects.get_or_create(pk=1)
    state.checks = {**state.checks, f"{task} {name}:{model}": report.as_json()}
    state.save(update_fields=["checks"])
    return report
