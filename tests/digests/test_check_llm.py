"""`check_llm`: the same report for every provider, against each protocol's
stand-in, and kept for the admin."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from digests.models import LLMState
from digests.quality import check_material
from tests.digests.ask_library import citing_answer

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("check_llm", *args, stdout=out)
    return out.getvalue()


def test_the_readings_check_reports_valid_replies_language_latency_and_cost(stand_in, admin_client):
    printed = run("--task", "readings")
    print(f"\n[digests] check_llm against the {stand_in.provider} stand-in ({stand_in.kind}):\n{printed}")

    papers = len(check_material()["papers"])
    assert f"readings on {stand_in.provider}:{stand_in.model}" in printed
    assert f"valid structured replies: {papers}/{papers}" in printed
    assert "sentences in the expected language:" in printed and "(100%)" in printed
    assert f"cost: {stand_in.currency}0.0" in printed and "all replies valid" in printed
    assert len(stand_in.requests_to(stand_in.path)) == papers
    (key,) = LLMState.objects.get(pk=1).checks
    assert key == f"readings {stand_in.provider}:{stand_in.model}"
    page = admin_client.get(reverse("admin:digests_llmstate_changelist")).content.decode()
    assert f"{key}: {papers}/{papers} valid" in page


def test_a_provider_that_writes_one_language_only_shows_in_the_report(stand_in):
    english = {"takeaway": "A test.", "problem": "P.", "method": "M.", "results": "R.", "limitations": "L."}
    english["changes"] = ""
    stand_in.reading_for = lambda params: {"zh": dict(english), "en": dict(english)}

    printed = run("--task", "readings")

    papers = len(check_material()["papers"])
    assert f"valid structured replies: 0/{papers}" in printed and "(50%)" in printed
    assert "zh reading is not written in Chinese" in printed and f"{papers} of {papers} not valid" in printed


def test_the_ask_check_reports_citations_among_the_papers_given(stand_in):
    stand_in.reading_for = citing_answer

    printed = run("--task", "ask")
    print(f"\n[digests] check_llm --task ask against the {stand_in.provider} stand-in ({stand_in.kind}):\n{printed}")

    assert "valid structured replies: 2/2" in printed
    assert "citations among the papers given: 4/4" in printed and "(100%)" in printed


def test_a_provider_without_a_key_or_model_is_refused_before_any_call(stand_in, settings):
    with pytest.raises(CommandError, match="--model is needed"):
        run("--provider", "anthropic" if stand_in.provider == "openai" else "openai")
    with pytest.raises(CommandError, match="not one of"):
        run("--provider", "nowhere")
    setattr(settings, stand_in.key_setting, "")
    with pytest.raises(CommandError, match="has no API key"):
        run()
    assert stand_in.requests == []
