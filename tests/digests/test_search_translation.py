"""A Chinese query's LLM translation in the library's search, against each
protocol's stand-in: the first search answers at once with the offline gloss
and asks for a translation on the LLM queue; once the task has run (called
directly here), later searches fuse the stored translation like the gloss and
show it under the box. Trouble or a spent budget leaves the gloss alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.cache import cache

from digests.models import DailySpend
from digests.tasks import translate_search_query
from papertrail.celery import app as celery_app
from tests import factories as f

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 2, 6, tzinfo=UTC)
QUERY = "幻觉检测"  # glossed offline as "hallucination detect"
GLOSSED = "Hallucination detection in language models"
TRANSLATED = "Spotting confabulations in chatbots"  # found by the translation's words only


@pytest.fixture
def fake(ask_stand_in):
    cache.clear()
    ask_stand_in.reading_for = lambda params: {"english": "confabulation detection"}
    f.store(
        f.record("2311.00001", title=GLOSSED, abstract="We detect hallucination in generated text."),
        f.record("2311.00002", title=TRANSLATED, abstract="Confabulations are caught by a verifier."),
        f.record("2311.00003", title="Structured pruning of transformer models", abstract="Pruning heads."),
        at=AT,
    )
    yield ask_stand_in
    cache.clear()


def search_page(client, query: str) -> str:
    response = client.get("/papers/", {"q": query})
    assert response.status_code == 200
    return response.content.decode()


def api_titles(client, query: str) -> list[str]:
    response = client.get("/api/v1/papers/", {"q": query})
    assert response.status_code == 200
    return [paper["title"] for paper in response.json()["results"]]


def test_a_chinese_query_answers_with_its_gloss_first_then_with_its_translation(client, fake):
    first = search_page(client, QUERY)
    assert GLOSSED in first and TRANSLATED not in first
    assert "也按英文检索：hallucination detect</p>" in first
    assert TRANSLATED not in api_titles(client, QUERY)
    # The searches waited for no LLM and wrote nothing: the task calls and pays.
    assert fake.requests == [] and not DailySpend.objects.exists()

    assert translate_search_query(QUERY) == "translated"
    assert len(fake.requests_to(fake.path)) == 1 and DailySpend.objects.get().calls == 1

    second = search_page(client, QUERY)
    assert GLOSSED in second and TRANSLATED in second
    assert "也按英文检索：hallucination detect · confabulation detection</p>" in second
    assert TRANSLATED in api_titles(client, QUERY)
    assert len(fake.requests_to(fake.path)) == 1  # translated once, then read from the cache


def test_a_mixed_query_is_glossed_and_translated(client, fake):
    fake.reading_for = lambda params: {"english": "transformer pruning"}
    assert "也按英文检索：transformer pruning</p>" in search_page(client, "transformer 剪枝")
    assert translate_search_query("transformer 剪枝") == "translated"
    page = search_page(client, "transformer 剪枝")
    assert "Structured pruning of transformer models" in page
    assert "也按英文检索：transformer pruning · transformer pruning</p>" in page


def test_the_translation_is_shown_escaped(client, fake):
    fake.reading_for = lambda params: {"english": "confabulation <b>detection</b>"}
    translate_search_query(QUERY)
    page = search_page(client, QUERY)
    assert "confabulation &lt;b&gt;detection&lt;/b&gt;" in page and "<b>detection" not in page


def test_with_the_llm_down_the_search_keeps_its_gloss_and_shows_no_error(client, fake):
    fake.queue(fake.path, fake.error(500, "api_error", "Internal server error"))
    assert translate_search_query(QUERY) == "no translation"
    page = search_page(client, QUERY)
    assert "也按英文检索：hallucination detect</p>" in page and TRANSLATED not in page
    assert "Internal server error" not in page and "api_error" not in page


def test_with_the_budget_spent_there_is_no_translation(client, fake, settings):
    settings.PAPERTRAIL_SUMMARY_DAILY_BUDGET_USD = settings.PAPERTRAIL_OPENAI_DAILY_BUDGET = 0
    assert translate_search_query(QUERY) == "no translation"
    assert fake.requests == []
    page = search_page(client, QUERY)
    assert "也按英文检索：hallucination detect</p>" in page and TRANSLATED not in page


def llm_queue_messages() -> list[dict]:
    """The messages waiting on the broker's "llm" queue, taken off it."""
    taken = []
    with celery_app.connection_for_write() as connection:
        queue = connection.SimpleQueue("llm")
        while True:
            try:
                message = queue.get(block=False)
            except queue.Empty:
                break
            taken.append(message.headers)
            message.ack()
        queue.close()
    return taken


def test_the_first_search_enqueues_one_translation_task_on_the_llm_queue(client, fake):
    llm_queue_messages()  # whatever an earlier test left
    search_page(client, QUERY)
    search_page(client, QUERY)  # asked for already: not enqueued twice
    client.get("/api/v1/papers/", {"q": QUERY})
    search_page(client, "hallucination detection")  # nothing to translate
    (task,) = llm_queue_messages()
    assert task["task"] == "digests.translate_search_query" and QUERY in task["argsrepr"]
