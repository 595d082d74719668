"""bench/admin_timings.py's pages exist: each scenario, on a tiny library,
answers 200 to the superuser the benchmark signs in."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from bench import admin_timings
from tests.factories import NOW, paper, pick, record, source, store

pytestmark = pytest.mark.django_db


def test_every_admin_scenario_answers_the_superuser():
    store(record("2611.00001", versions=3), record("2611.00002"), at=NOW)
    hf = source("hf_daily")
    pick(paper("2611.00001"), hf)
    inputs = admin_timings.pick_admin_inputs()
    client = admin_timings.superuser_client()

    scenarios = admin_timings.admin_scenarios(
        arxiv_id=inputs["arxiv_id"],
        paper_pk=inputs["paper_pk"],
        author_pk=inputs["author_pk"],
        source_pk=inputs["source_pk"],
    )

    assert inputs["paper_versions"] == 3 and inputs["arxiv_id"] == "2611.00001"
    assert {s.urls[0].split("/")[3] for s in scenarios} == {
        "paper",
        "version",
        "author",
        "source",
        "harvestrun",
        "communitypick",
    }
    for scenario in scenarios:
        response = client.get(scenario.urls[0])
        assert response.status_code == 200, scenario.name
    searched = client.get(f"/admin/harvest/paper/?q={inputs['arxiv_id']}")
    assert [p.arxiv_id for p in searched.context["cl"].result_list] == ["2611.00001"]


def test_the_superuser_is_created_once():
    admin_timings.superuser_client()
    admin_timings.superuser_client()

    users = get_user_model().objects.filter(username=admin_timings.ADMIN_USERNAME)
    assert users.count() == 1 and users.get().is_superuser
