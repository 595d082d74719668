"""The rule everywhere: a category follow matches exactly the papers the
library shows for the same category, archive and cross-list choice."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from accounts.follows.services import follow_create
from accounts.trail.selectors import trail_page
from harvest.filters import PaperFilterSet
from tests.accounts.conftest import ago, harvest, record

pytestmark = pytest.mark.django_db

PAPERS = [
    record("2611.00001", categories=["cs.LG", "stat.ML"]),
    record("2611.00002", categories=["stat.ML", "cs.LG"]),
    record("2611.00003", categories=["cs.CL"]),
    record("2611.00004", categories=["math.CO", "cs.DM"]),
    record("hep-th/9901001", categories=["hep-th", "gr-qc"]),
]


@pytest.mark.parametrize("code", ["cs.LG", "stat.ML", "cs", "stat", "hep-th", "gr-qc"])
@pytest.mark.parametrize("cross_lists", [True, False])
def test_a_category_follow_matches_what_the_library_shows(user, code, cross_lists):
    harvest(*PAPERS, at=ago(days=1))
    follow = follow_create(user=user, kind="category", value={"code": code}, name=code, include_cross_lists=cross_lists)
    followed = {entry.paper.arxiv_id for entry in trail_page(user=user, follow_id=follow.pk, size=100).entries}
    query = QueryDict(f"category={code}" + ("" if cross_lists else "&cross_lists=0"))
    filterset = PaperFilterSet(query)
    assert filterset.is_valid(), filterset.errors
    shown = set(filterset.qs.values_list("arxiv_id", flat=True))
    assert followed == shown
    assert shown or (code == "gr-qc" and not cross_lists)  # the cases do select papers
