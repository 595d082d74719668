"""What bench/portal.py requests: every page and API call the targets name, with
the parameters drawn from the library itself (its query tiers, a prolific and
a one-paper author, papers with several versions)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

# Targets at one million papers, p95 server time in milliseconds.
TARGETS_MS = {"overview": 50, "library": 100, "api-list": 100, "search": 150, "search-least": 1000, "detail": 50}


@dataclass
class Scenario:
    name: str
    group: str  # key of TARGETS_MS
    urls: list[str]  # rotated through, one per run
    note: str = ""
    clear_cache: bool = False  # drop the stored overview numbers before each run (the request computes them)
    refresh: bool = False  # the stats task recomputes and stores the numbers before each run (untimed)


def _library_params(tiers: dict, authors: tuple[str, str], today_beijing) -> list[tuple[str, str, dict]]:
    """(name, group, query parameters) shared by the /papers/ page and the API list."""
    month_ago = (today_beijing - timedelta(days=30)).isoformat()
    year_ago = (today_beijing - timedelta(days=365)).isoformat()
    prolific, single = authors
    return [
        ("default sort (updated)", "library", {}),
        ("sort=included_at", "library", {"sort": "included_at"}),
        ("sort=published", "library", {"sort": "published"}),
        ("sort=popular", "library", {"sort": "popular"}),
        ("sort=popular & ai=1", "library", {"sort": "popular", "ai": "1"}),
        ("sort=popular & category=cs.CV", "library", {"sort": "popular", "category": "cs.CV"}),
        ("days=7", "library", {"days": "7"}),
        (
            "since..until 30 days, sort=published",
            "library",
            {"since": month_ago, "until": today_beijing.isoformat(), "sort": "published"},
        ),
        ("category=cs.LG", "library", {"category": "cs.LG"}),
        ("category=cs.DB (small)", "library", {"category": "cs.DB"}),
        ("category=cs.CV,cs.RO", "library", {"category": "cs.CV,cs.RO"}),
        ("ai=1", "library", {"ai": "1"}),
        ("revised=1", "library", {"revised": "1"}),
        ("hf=1", "library", {"hf": "1"}),
        ("ai=0", "library", {"ai": "0"}),
        ("author (prolific)", "library", {"author": prolific}),
        ("author (one paper)", "library", {"author": single}),
        ("cs.CL & ai=1 & revised=1", "library", {"category": "cs.CL", "ai": "1", "revised": "1"}),
        ("cs.LG & hf=1", "library", {"category": "cs.LG", "hf": "1"}),
        ("cs.DS & sort=published & year", "library", {"category": "cs.DS", "sort": "published", "since": year_ago}),
        ("revised=1 & sort=included_at", "library", {"revised": "1", "sort": "included_at"}),
        ("cs.SE & revised=0 & hf=0", "library", {"category": "cs.SE", "revised": "0", "hf": "0"}),
        (f"q={tiers['high']['q']} (high selectivity)", "search", {"q": tiers["high"]["q"]}),
        (f"q={tiers['medium']['q']} (medium)", "search", {"q": tiers["medium"]["q"]}),
        (f"q={tiers['two_words']['q']} (two words)", "search", {"q": tiers["two_words"]["q"]}),
        (f"q={tiers['medium']['q']} & sort=updated", "search", {"q": tiers["medium"]["q"], "sort": "updated"}),
        (
            f"q={tiers['low']['q']} & cs.LG & sort=updated",
            "search",
            {"q": tiers["low"]["q"], "category": "cs.LG", "sort": "updated"},
        ),
        (f"q={tiers['low']['q']} (least selective)", "search-least", {"q": tiers["low"]["q"]}),
    ]


def scenarios(*, tiers: dict, authors: tuple[str, str], paper_ids: list[str], today_beijing) -> list[Scenario]:
    result = [
        Scenario("overview /", "overview", ["/"], "numbers stored by the stats task"),
        Scenario(
            "overview / (numbers just refreshed)",
            "overview",
            ["/"],
            "the stats task recomputes the numbers before each run, as every minute",
            refresh=True,
        ),
        Scenario(
            "overview / (numbers recomputed)",
            "overview",
            ["/"],
            "nothing stored before each run: the request computes them (no worker refreshing them)",
            True,
        ),
        Scenario("overview numbers fragment", "overview", ["/overview/numbers/"], "htmx poll, cached numbers"),
    ]
    for name, group, params in _library_params(tiers, authors, today_beijing):
        query = f"?{urlencode(params)}" if params else ""
        result.append(Scenario(f"/papers/ {name}", group, [f"/papers/{query}"]))
        api_group = "api-list" if group == "library" else group
        result.append(Scenario(f"API papers {name}", api_group, [f"/api/v1/papers/{query}"]))
    result += [
        Scenario("/papers/ page 2 (cursor)", "library", [], "the second page of the default sort"),
        Scenario("/papers/ popular page 2 (cursor)", "library", [], "the second page of the popular sort"),
        Scenario("API papers popular page 2 (cursor)", "api-list", [], "the second page of the popular sort"),
        Scenario("paper page", "detail", [f"/papers/{arxiv_id}/" for arxiv_id in paper_ids]),
        Scenario("API paper detail", "detail", [f"/api/v1/papers/{arxiv_id}/" for arxiv_id in paper_ids]),
        Scenario("API stats", "overview", ["/api/v1/stats/"], "numbers stored by the stats task"),
        Scenario(
            "API stats (numbers just refreshed)",
            "overview",
            ["/api/v1/stats/"],
            "the stats task recomputes the numbers before each run, as every minute",
            refresh=True,
        ),
        Scenario(
            "API stats (numbers recomputed)",
            "overview",
            ["/api/v1/stats/"],
            "nothing stored before each run: the request computes them (no worker refreshing them)",
            True,
        ),
    ]
    return result
