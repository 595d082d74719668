"""The Django admin at scale: every registered library model's change list
(plain, searched by an arXiv id, filtered) and the change pages of a paper
with several versions and of a prolific author, as a signed-in superuser.

Timed like bench/portal.py's scenarios (Django's test client in process, one
first request, then `runs` timed ones), against TARGET_MS at p95.
"""

from __future__ import annotations

import sys

from django.contrib.auth import get_user_model
from django.db.models import Count
from django.test import Client

from bench.common import percentile
from bench.scenarios import Scenario
from bench.timing import timed_runs
from harvest.models import Author, CommunityPick, Paper

TARGET_MS = 200
ADMIN_USERNAME = "bench-admin"


def admin_scenarios(*, arxiv_id: str, paper_pk: int, author_pk: int, source_pk: int) -> list[Scenario]:
    """What an editor opens: each list as it comes, searched, filtered."""
    base = "/admin/harvest"
    lists = {
        "paper": ["", f"?q={arxiv_id}", "?ai_related__exact=1", "?primary=cs.LG", "?revised=1"],
        "version": ["", f"?q={arxiv_id}"],
        "author": ["", "?q=Zhang"],
        "source": ["", "?enabled__exact=1"],
        "harvestrun": ["", "?status__exact=failed", f"?source__id__exact={source_pk}"],
        "communitypick": ["", f"?q={arxiv_id}", f"?source__id__exact={source_pk}"],
    }
    result = [
        Scenario(f"admin {model} list {query or '(plain)'}", "admin", [f"{base}/{model}/{query}"])
        for model, queries in lists.items()
        for query in queries
    ]
    result += [
        Scenario("admin paper change (most versions)", "admin", [f"{base}/paper/{paper_pk}/change/"]),
        Scenario("admin author change (prolific)", "admin", [f"{base}/author/{author_pk}/change/"]),
    ]
    return result


def superuser_client():
    """A test client signed in as the bench's superuser (created once in the bench library)."""
    user, _ = get_user_model().objects.get_or_create(
        username=ADMIN_USERNAME, defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client()
    client.force_login(user)
    return client


def pick_admin_inputs() -> dict:
    paper = Paper.objects.order_by("-version_count", "id").values("pk", "arxiv_id", "version_count").first()
    # The synthetic library's first authors are its busiest (bench/library.py's Zipf law): no count of them all.
    first = list(Author.objects.order_by("id").values_list("pk", flat=True)[:3])
    author = Author.objects.filter(pk__in=first).annotate(n=Count("authorships")).order_by("-n").values("pk").first()
    pick = CommunityPick.objects.select_related("paper").order_by("-featured_on").first()
    return {
        "arxiv_id": pick.paper.arxiv_id if pick else paper["arxiv_id"],
        "paper_pk": paper["pk"],
        "paper_versions": paper["version_count"],
        "author_pk": author["pk"],
        "source_pk": pick.source_id if pick else 1,
    }


def measure(runs: int) -> dict:
    inputs = pick_admin_inputs()
    client = superuser_client()
    rows = []
    for scenario in admin_scenarios(
        arxiv_id=inputs["arxiv_id"],
        paper_pk=inputs["paper_pk"],
        author_pk=inputs["author_pk"],
        source_pk=inputs["source_pk"],
    ):
        first, timings, statuses = timed_runs(scenario, runs, client.get)
        p95 = percentile(timings, 0.95)
        rows.append(
            {
                "name": scenario.name,
                "url": scenario.urls[0],
                "first_ms": first,
                "p50_ms": percentile(timings, 0.5),
                "p95_ms": p95,
                "statuses": sorted(statuses),
                "meets_target": p95 <= TARGET_MS and statuses == {200},
            }
        )
        print(f"  {scenario.name}: p95 {p95:.1f} ms", file=sys.stderr, flush=True)
    return {"target_p95_ms": TARGET_MS, "inputs": inputs, "results": rows}


def lines(report: dict) -> list[str]:
    out = [
        "",
        f"admin (signed-in superuser), target p95 ≤ {report['target_p95_ms']} ms",
        f"{'page':58} {'p50':>7} {'p95':>7}  ok",
    ]
    for row in report["results"]:
        ok = "yes" if row["meets_target"] else f"NO {row['statuses']}"
        out.append(f"{row['name'][:58]:58} {row['p50_ms']:>7.1f} {row['p95_ms']:>7.1f}  {ok}")
    return out
