from __future__ import annotations

from collections.abc import Iterator

import pytest
from celery.signals import after_task_publish

from harvest.models import Version
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord, VersionRecord
from papertrail.celery import app
from tests.digests.ask_library import citing_answer
from tests.digests.fake_anthropic import FakeAnthropic
from tests.digests.fake_openai import FakeOpenAI

# The model an OpenAI-compatible deployment names (DeepSeek's), priced in yuan.
OPENAI_MODEL = "deepseek-chat"


@pytest.fixture
def fake_anthropic(settings, monkeypatch) -> Iterator[FakeAnthropic]:
    """The fake Anthropic API, with the SDK pointed at it through its own
    ANTHROPIC_BASE_URL and the project configured with the key it accepts."""
    server = FakeAnthropic().start()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    settings.ANTHROPIC_API_KEY = server.api_key
    settings.PAPERTRAIL_SUMMARY_BACKOFF_BASE = 0.01
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = 5.0
    settings.PAPERTRAIL_SUMMARY_SCOPE = "ai"
    try:
        yield server
    finally:
        server.stop()


def start_stand_in(kind: str, settings, monkeypatch) -> FakeAnthropic | FakeOpenAI:
    """A stand-in for `kind` ("anthropic", "openai": a forced function call,
    "openai-json": JSON mode), with every task pointed at it through the
    SDK's own base-URL variable. `server.provider` and `server.model` say
    what a reading it writes records."""
    settings.PAPERTRAIL_SUMMARY_BACKOFF_BASE = 0.01
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = 5.0
    settings.PAPERTRAIL_SUMMARY_SCOPE = "ai"
    if kind == "anthropic":
        server = FakeAnthropic().start()
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        settings.ANTHROPIC_API_KEY = server.api_key
        server.provider, server.model, server.currency = "anthropic", settings.PAPERTRAIL_SUMMARY_MODEL, "$"
        return server
    server = FakeOpenAI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    settings.OPENAI_API_KEY = server.api_key
    settings.ANTHROPIC_API_KEY = ""  # a deployment without an Anthropic account
    settings.PAPERTRAIL_OPENAI_STRUCTURED = "json" if kind == "openai-json" else "tool"
    settings.PAPERTRAIL_OPENAI_CURRENCY = "¥"
    settings.PAPERTRAIL_OPENAI_DAILY_BUDGET = 5.0
    for task in ("READINGS", "ASK", "TRANSLATE"):
        setattr(settings, f"PAPERTRAIL_LLM_{task}", f"openai:{OPENAI_MODEL}")
    server.provider, server.model, server.currency = "openai", OPENAI_MODEL, "¥"
    return server


@pytest.fixture(params=["anthropic", "openai", "openai-json"])
def stand_in(request, settings, monkeypatch) -> Iterator[FakeAnthropic | FakeOpenAI]:
    """Each protocol's stand-in in turn: the same test holds for all."""
    server = start_stand_in(request.param, settings, monkeypatch)
    server.kind = request.param
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["anthropic", "openai"])
def ask_stand_in(request, settings, monkeypatch) -> Iterator[FakeAnthropic | FakeOpenAI]:
    """Each protocol's stand-in answering questions with citations of the papers it was given."""
    server = start_stand_in(request.param, settings, monkeypatch)
    server.reading_for = citing_answer
    try:
        yield server
    finally:
        server.stop()


def make_record(
    arxiv_id: str,
    *,
    title: str = "Sparse attention for long documents",
    abstract: str = (
        "We study attention over long documents. We propose a sparse attention pattern that scales linearly. "
        "On three benchmarks it matches dense attention at a fifth of the cost."
    ),
    categories: list[str] | None = None,
    versions: int = 1,
    comments: str = "",
) -> PaperRecord:
    return PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract=abstract,
        authors=["Ada Lovelace", "Alan Turing"],
        categories=categories or ["cs.LG", "cs.CL"],
        comments=comments,
        versions=[VersionRecord(number=n) for n in range(1, versions + 1)],
    )


def store(*records: PaperRecord) -> list[Version]:
    """Store through the harvest's own upsert service; the new versions."""
    result = paper_upsert_many(records=list(records))
    return list(Version.objects.filter(pk__in=result.created_version_ids).select_related("paper"))


@pytest.fixture
def published():
    """The upgrade tasks sent to the broker (queue and arguments); the queue emptied afterwards."""
    sent: list[dict] = []

    def record(sender=None, headers=None, routing_key=None, body=None, **kwargs) -> None:
        if headers["task"] == "digests.upgrade_reading":
            sent.append({"queue": routing_key, "args": list(body[0])})

    after_task_publish.connect(record, weak=False)
    try:
        yield sent
    finally:
        after_task_publish.disconnect(record)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge("llm")
