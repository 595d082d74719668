"""The measure of "ask the library" (docs/ask.md), on the search evaluation's
real-paper collection (harvest/search_evaluation.py), stored in the library
for the run only and rolled back after:

- the context: for every need's six queries (English and Chinese; keywords,
  question, paraphrase), the papers the ask service retrieves (its own
  retrieval, top K); precision@K is the share of them judged relevant,
  recall@K the share of the need's relevant papers among them, hit@K whether
  any relevant paper reaches the context at all;
- the answers: each need's question (both languages) asked through the
  whole service against a local stand-in for the Messages API that answers
  after a fixed delay, citing three papers of its context and one outside it;
  citation validity is the share of shown citations among the retrieved
  papers, and latency p50/p95 is the service's wall time with and without
  that fixed delay, so the figure is PaperTrail's own;
- the passages (digests/ask/passage_evaluation.py): the recorded full texts
  asked about, in both languages, within the library and as "ask about this
  paper"; the stand-in cites three of the passages given with a claim from
  each one's first sentence and one claim under a section it does not come
  from, so its passage-level precision is a check of the measure, and a real
  model's figure comes from running the same questions through its provider.
"""

from __future__ import annotations

import json
import re
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import unescape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
from django.conf import settings
from django.db import transaction
from django.test.utils import override_settings

from digests.ask.passage_evaluation import PassagePrecision, fixture_questions, store_fixture_full_texts
from digests.ask.prompt import TOOL_NAME
from digests.ask.retrieval import retrieve, search_text
from digests.ask.services import Question, ask_answer
from digests.providers.anthropic_api import AnthropicProvider
from digests.providers.base import ProviderConfig
from harvest.embeddings.encoders import get_encoder
from harvest.models import Paper
from harvest.search_evaluation import LANGUAGES, STYLES, Collection, collection_in_library, passage_vectors

FAKE_DELAY_SECONDS = 0.2
FOREIGN_CITATION = ("0000.00000", 1)
_LABEL = re.compile(r'<paper label="arXiv:([^"\s]+) v(\d+)">')
_PASSAGE = re.compile(r'<passage cite="arXiv:([^"\s]+) v(\d+) §([^"]+)">(.*?)</passage>', flags=re.S)


class _RolledBack(Exception):
    pass


def _passage_points(content: str) -> list[dict]:
    """Three claims, each the first sentence of a passage given, cited to its
    section; and the first of them again under another section given."""
    given = [(a, int(v), unescape(s), unescape(text)) for a, v, s, text in _PASSAGE.findall(content)]
    points = []
    for arxiv_id, number, section, text in given[:3]:
        claim = " ".join(re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].split()[:30])
        points.append(
            {
                "text": f"{claim} [arXiv:{arxiv_id} v{number} §{section}]",
                "citations": [{"arxiv_id": arxiv_id, "version": number, "section": section}],
            }
        )
    other = next((g for g in given if g[2] != given[0][2]), None) if given else None
    if other is not None:
        claim = points[0]["text"].rsplit(" [arXiv:", 1)[0]
        points.append(
            {
                "text": f"{claim} [arXiv:{other[0]} v{other[1]} §{other[2]}]",
                "citations": [{"arxiv_id": other[0], "version": other[1], "section": other[2]}],
            }
        )
    return points


def _fake_message(params: dict) -> dict:
    content = params["messages"][0]["content"]
    if _PASSAGE.search(content):
        return _tool_reply(params, _passage_points(content))
    labels = _LABEL.findall(content)[:3]
    points = [
        {
            "text": f"A finding [arXiv:{arxiv_id} v{number}].",
            "citations": [{"arxiv_id": arxiv_id, "version": int(number)}],
        }
        for arxiv_id, number in labels
    ]
    foreign_id, foreign_version = FOREIGN_CITATION
    points.append(
        {
            "text": f"An invented claim [arXiv:{foreign_id} v{foreign_version}].",
            "citations": [{"arxiv_id": foreign_id, "version": foreign_version}],
        }
    )
    return _tool_reply(params, points)


def _tool_reply(params: dict, points: list[dict]) -> dict:
    return {
        "id": "msg_evaluation",
        "type": "message",
        "role": "assistant",
        "model": params["model"],
        "content": [
            {
                "type": "tool_use",
                "id": "toolu_evaluation",
                "name": TOOL_NAME,
                "input": {"synthesis": "", "points": points},
            }
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 200},
    }


@contextmanager
def fake_messages_api(delay: float = FAKE_DELAY_SECONDS) -> Iterator[str]:
    """A local Messages API answering every request after `delay` seconds; its URL."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def do_POST(self) -> None:
            params = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            time.sleep(delay)
            body = json.dumps(_fake_message(params)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class AskReport:
    k: int
    precision: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    recall: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    hit: dict[tuple[str, str], list[float]] = field(default_factory=lambda: defaultdict(list))
    shown_citations: int = 0
    valid_citations: int = 0
    dropped_citations: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    delay_ms: float = FAKE_DELAY_SECONDS * 1000
    passages: PassagePrecision = field(default_factory=PassagePrecision)
    needs: list[str] = field(default_factory=list)  # in the order of the lists above

    @staticmethod
    def _mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    def recall_by_need(self, language: str, style: str | None = None) -> list[float]:
        """Each need's recall@K, its three styles averaged when `style` is None,
        so that a spread is across needs, not across correlated queries."""
        if style is not None:
            return list(self.recall[(language, style)])
        per_style = [self.recall[(language, s)] for s in STYLES]
        return [sum(values) / len(values) for values in zip(*per_style, strict=True)]

    def recall_spread(self, language: str, style: str | None = None) -> str:
        values = self.recall_by_need(language, style)
        spread = float(np.std(values, ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0
        return f"{self._mean(values):.2f} ± {spread:.2f}"

    def _cell(self, language: str, style: str | None) -> str:
        def pick(table):
            return [v for (lang, s), vs in table.items() if lang == language and style in (None, s) for v in vs]

        return (
            f"{self._mean(pick(self.precision)):.2f} / {self._mean(pick(self.recall)):.2f} / "
            f"{self._mean(pick(self.hit)):.2f}"
        )

    def table(self) -> str:
        k = self.k
        lines = [
            f"| language | keywords | question | paraphrase | all (precision@{k} / recall@{k} / hit@{k}) |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for language in LANGUAGES:
            cells = [self._cell(language, style) for style in STYLES]
            lines.append(f"| {language} | {' | '.join(cells)} | **{self._cell(language, None)}** |")
        lines += [
            "",
            f"recall@{k} ± its standard error across needs ({len(self.needs)} needs):",
            "",
            "| language | keywords | question | paraphrase | all |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for language in LANGUAGES:
            cells = [self.recall_spread(language, style) for style in (*STYLES, None)]
            lines.append(f"| {language} | {' | '.join(cells)} |")
        for language in LANGUAGES:
            below = [
                f"{need} {value:.2f}"
                for need, value in zip(self.needs, self.recall_by_need(language), strict=True)
                if value < 0.5
            ]
            lines.append(f"{language}, needs with less than half in the context: {', '.join(below) or 'none'}")
        validity = self.valid_citations / self.shown_citations if self.shown_citations else 0.0
        ordered = sorted(self.latencies_ms)

        def quantile(q: float) -> float:
            if not ordered:
                return 0.0
            return (
                statistics.quantiles(ordered, n=100, method="inclusive")[int(q * 100) - 1]
                if len(ordered) > 1
                else ordered[0]
            )

        p50, p95 = quantile(0.50), quantile(0.95)
        lines += [
            "",
            f"answers: {len(ordered)}; shown citations {self.shown_citations}, among the retrieved papers "
            f"{self.valid_citations} ({validity:.0%}); removed {self.dropped_citations} outside them",
            f"latency with a {self.delay_ms:.0f} ms fake model: p50 {p50:.0f} ms, p95 {p95:.0f} ms; "
            f"PaperTrail's own share: p50 {p50 - self.delay_ms:.0f} ms, p95 {p95 - self.delay_ms:.0f} ms",
        ]
        if self.passages.cited or self.passages.without_terms:
            lines.append(self.passages.line())
        return "\n".join(lines)


def evaluate_ask(
    collection: Collection | None = None,
    *,
    k: int | None = None,
    answers: bool = True,
    passages: bool = True,
    vectors: np.ndarray | None = None,
    progress: Callable[[str], None] | None = None,
) -> AskReport:
    """`vectors`: the papers' passage vectors, in their order (default: the
    collection's cached file, computed again when stale)."""
    collection = collection or Collection.load()
    encoder = get_encoder()
    if vectors is None:
        vectors = passage_vectors(collection, encoder, progress=progress)
    k = k or settings.PAPERTRAIL_ASK_TOP_K
    report = AskReport(k=k)
    with collection_in_library(collection, vectors, encoder) as ids:
        papers = Paper.objects.filter(pk__in=list(ids.values()))
        for need in collection.needs:
            relevant = set(need.relevant)
            report.needs.append(need.id)
            for language in LANGUAGES:
                for style in STYLES:
                    found = retrieve(
                        question=search_text(need.queries[language][style]), filters={}, within=papers, k=k
                    )
                    retrieved = {paper.arxiv_id for paper in found}
                    overlap = len(retrieved & relevant)
                    report.precision[(language, style)].append(overlap / len(found) if found else 0.0)
                    report.recall[(language, style)].append(overlap / len(relevant) if relevant else 0.0)
                    report.hit[(language, style)].append(1.0 if overlap else 0.0)
            if progress is not None:
                progress(f"need {need.id}: context measured")
        if answers:
            _measure_answers(collection, papers, report, k=k, progress=progress)
    if passages:
        _measure_passages(report, k=k, progress=progress)
    return report


@contextmanager
def _fake_provider(k: int) -> Iterator[AnthropicProvider]:
    with (
        fake_messages_api() as url,
        override_settings(
            ANTHROPIC_API_KEY="evaluation-fake-key",
            PAPERTRAIL_LLM_ASK=f"anthropic:{settings.PAPERTRAIL_SUMMARY_MODEL}",
            PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD=1e9,
            PAPERTRAIL_ASK_TOP_K=k,
        ),
    ):
        config = ProviderConfig(name="anthropic", protocol="anthropic", api_key="evaluation-fake-key", base_url=url)
        yield AnthropicProvider(config, timeout=30)


def _measure_passages(report: AskReport, *, k: int, progress) -> None:
    """The recorded full texts' questions, within them and about each paper;
    everything stored is rolled back after."""
    fixtures = fixture_questions()
    with _fake_provider(k) as provider:
        try:
            with transaction.atomic():
                papers = store_fixture_full_texts(fixtures)
                within = Paper.objects.filter(pk__in=[paper.pk for paper in papers.values()])
                for item in fixtures:
                    for language in LANGUAGES:
                        text = item["questions"][language]
                        for about in (None, papers[item["arxiv_id"]]):
                            question = Question(text=text, filters={}, within=within, paper=about)
                            report.passages.add(ask_answer(user=None, question=question, provider=provider))
                    if progress is not None:
                        progress(f"{item['arxiv_id']}: passages measured")
                raise _RolledBack
        except _RolledBack:
            pass


def _measure_answers(collection: Collection, papers, report: AskReport, *, k: int, progress) -> None:
    with _fake_provider(k) as provider:
        for need in collection.needs:
            for language in LANGUAGES:
                started = time.perf_counter()
                asked = ask_answer(
                    user=None,
                    question=Question(text=need.queries[language]["question"], filters={}, within=papers),
                    provider=provider,
                )
                report.latencies_ms.append((time.perf_counter() - started) * 1000)
                allowed = {(item["arxiv_id"], item["version"]) for item in asked.retrieved}
                for point in asked.answer["points"]:
                    for citation in point["citations"]:
                        report.shown_citations += 1
                        report.valid_citations += (citation["arxiv_id"], citation["version"]) in allowed
                report.dropped_citations += asked.dropped_citations
            if progress is not None:
                progress(f"need {need.id}: answered")
