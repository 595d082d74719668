"""Schemathesis generates requests from the served OpenAPI schema (valid and
invalid ones, a bounded number per operation) and sends them to the API's
WSGI application on the test database: no response may be a server error or
break the schema (status, content type, headers, body). Every request
carries the token of a user with follows of each kind, a trail and
recommendations, so the
/me/ operations are exercised past authentication."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accounts.follows.services import follow_create
from accounts.models import User
from accounts.recommend.jobs import retrain_and_rescore
from accounts.recommend.models import Recommendation
from accounts.records.services import record_save
from accounts.services import api_token_create
from accounts.trail.services import trail_dismiss, trail_mark_read
from digests.models import Ask
from harvest.models import HarvestRun, Paper, Version
from harvest.source_records import PaperRecord
from tests import factories
from tests.accounts.conftest import cards
from tests.factories import pick, reading, run, source, store

EXAMPLES_PER_OPERATION = 40

V1 = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)


def record(arxiv_id: str, *, first: datetime = V1, **fields) -> PaperRecord:
    """A paper about sparse attention (the API tests search for it), v1 at `first`."""
    return factories.record(
        arxiv_id, abstract="We study sparse attention over long documents.", first_submitted=first, **fields
    )


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def _schema() -> dict:
    """The schema the API serves (tests/portal/api/test_schema.py checks the serving),
    built at collection time: schemathesis parametrizes by operation."""
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


schema = schemathesis.openapi.from_dict(_schema())
schema.app = WSGIHandler()
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=EXAMPLES_PER_OPERATION
)


@pytest.fixture
def library(db, api_site, settings) -> Iterator[None]:
    """A small library with every kind of row. Like Django's test client, the
    WSGI calls keep the test's database connection open (and its transaction)."""
    settings.ALLOWED_HOSTS = ["localhost"]  # the Host schemathesis sends over WSGI
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    now = timezone.now()
    store(
        record("2611.13545", versions=2, categories=["cs.LG", "cs.CL"]),
        record("hep-th/9901001", categories=["hep-th"]),
        at=now - timedelta(days=3),
    )
    store(record("2611.13545", versions=3, categories=["cs.LG", "cs.CL"]), record("2611.00002"), at=now)
    reading(Version.objects.get(paper__arxiv_id="2611.13545", number=3), written_at=now)
    arxiv, hf = source("arxiv", "arXiv OAI-PMH"), source("hf_daily", "Hugging Face Daily Papers")
    run(arxiv, started_at=now - timedelta(hours=1), seen=3, new_papers=1)
    run(hf, started_at=now - timedelta(hours=1), status=HarvestRun.Status.FAILED, error="HTTP 503")
    run(hf, started_at=now, status=HarvestRun.Status.RUNNING)
    pick(Paper.objects.get(arxiv_id="2611.00002"), hf)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def member(library, settings, fake_llm) -> dict:
    """The token of a user with a follow of each kind over the library, a
    trail with read, unread and dismissed cards, a question to the library
    and a second token. Questions are answered by the local stand-in for the
    Anthropic API."""
    user = User.objects.create_user("member", password="x")
    for kind, value in (
        ("category", {"code": "cs.LG"}),
        ("author", {"author": "Ada Lovelace", "variants": ["Ada Lovelace", "A. Lovelace"]}),
        ("query", {"q": "sparse attention"}),
        ("filters", {"category": ["cs.CL"], "revised": "1"}),
    ):
        follow_create(user=user, kind=kind, value=value, name=f"{kind} follow")
    items = sorted(card.paper_id for card in cards(user))
    assert len(items) >= 2
    trail_mark_read(user=user, item_ids=items[:1])
    trail_dismiss(user=user, item_id=items[-1])
    # A research record with tags; imports ask arXiv for nothing (generated
    # ids would go out to the world). Three saves and a trained model: the
    # recommendations have a row to show and refuse.
    settings.RECORDS_IMPORT_MAX_LOOKUPS = 0
    # Dated today: the recommendations' window counts arXiv's dates.
    today = timezone.now() - timedelta(hours=2)
    store(record("2611.00003", first=today), record("2611.00004", first=today), at=timezone.now())
    record_save(user=user, paper=Paper.objects.get(arxiv_id="2611.13545"), state="reading", tags=["LLM"], note="$x$")
    record_save(user=user, paper=Paper.objects.get(arxiv_id="hep-th/9901001"), tags=["strings", "LLM"])
    record_save(user=user, paper=Paper.objects.get(arxiv_id="2611.00002"), tags=["attention"])
    retrain_and_rescore(user.pk)
    recommendations = list(Recommendation.objects.filter(user=user).order_by("pk").values_list("pk", flat=True))
    assert recommendations
    asked = Ask.objects.create(
        user=user,
        question="What is sparse attention?",
        language="en",
        cache_key="schemathesis",
        retrieved=[{"arxiv_id": "2611.13545", "version": 3}],
        answer={"synthesis": "It is cheaper.", "points": []},
    )
    api_token_create(user=user, name="spare")
    _token, secret = api_token_create(user=user, name="schemathesis")
    return {
        "secret": secret,
        "follow_id": list(user.follows.order_by("pk").values_list("pk", flat=True)),
        "item_id": items,
        "arxiv_id": ["2611.13545", "hep-th/9901001"],
        "recommendation_id": recommendations,
        "ask_id": [asked.pk],
    }


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    # Fixed examples in CI (a run is reproducible); fresh ones on developers'
    # machines, where a new find is welcome.
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_no_server_errors_and_no_responses_breaking_the_schema(case, member):
    # Generated ids would hardly ever name the member's follows and cards:
    # even ones are mapped onto them, odd ones stay (mostly) unknown ids.
    for name in ("follow_id", "item_id", "recommendation_id", "ask_id"):
        value = (case.path_parameters or {}).get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value % 2 == 0:
            case.path_parameters[name] = member[name][value // 2 % len(member[name])]
    # Likewise a record's arXiv id: an even-length one becomes a saved paper's.
    saved = (case.path_parameters or {}).get("arxiv_id")
    if "/me/records/" in case.path and isinstance(saved, str) and len(saved) % 2 == 0:
        case.path_parameters["arxiv_id"] = member["arxiv_id"][len(saved) // 2 % 2]
    case.call_and_validate(headers={"Authorization": f"Bearer {member['secret']}"}, checks=CHECKS)
