"""Importance signals (harvest/importance.py) on real recorded arXiv text, what
ingest stores of them, and the command that fills them for stored papers."""

from __future__ import annotations

import json
from datetime import date

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from harvest.importance import code_link, popularity, venue_acceptance
from harvest.importance_fill import paper_signals_fill
from harvest.models import Paper
from harvest.services import community_pick_upsert_many
from harvest.sources.abs_files import abs_records
from harvest.sources.arxiv_api import records_from_atom
from harvest.sources.arxiv_rss import parse_feed
from harvest.sources.base import PickRecord
from tests import factories as f
from tests.conftest import PROJECT_ROOT

FIXTURES = PROJECT_ROOT / "tests" / "fixtures"


def _api_records() -> dict:
    body = json.loads((FIXTURES / "arxiv_api" / "q_testing_s0_m100_cfe7536492ca.json").read_text())["body"]
    return {record.arxiv_id: record for record in records_from_atom(body.encode())}


def _abs(name: str):
    return abs_records(FIXTURES / "arxiv_abs_signals" / name)[0]


# --- venues, on real comments ------------------------------------------------------


@pytest.mark.parametrize(
    ("arxiv_id", "venue"),
    [
        ("2005.14124", "ISSTA 2020"),  # Accepted by the ... (ISSTA 2020)
        ("2005.06826", "ISSTA 2020"),  # Accepted to the ... (ISSTA), 2020
        ("2301.13615", "ICST 2023"),  # Accepted at the 16th IEEE ... (ICST) 2023
        ("2301.05651", "ICST 2023"),  # Accepted to the ... (ICST2023)
        ("2202.06271", "ICST 2022"),  # To appear at the ... (ICST 2022)
        ("2306.07400", "ICST 2026"),  # In proceedings of ... 2026 (ICST '26)
        ("2501.09657", "ICST 2025"),  # Accepted for publication at 2025 IEEE ... (ICST)
        ("2007.09895", "SODA 2021"),  # 53 pages. ... to appear in Symposium on Discrete Algorithms (SODA), 2021
        ("1808.05353", "ISSTA 2018"),  # Published at 27th ACM SIGSOFT ... (ISSTA 2018)
        ("2602.15552", "ICSE 2026 workshop"),  # ... International Workshop ... co-located with ICSE 2026
        ("2401.15189", "ICSE 2024 workshop"),  # to appear in ... Workshop ... (SBFT@ICSE 2024)
    ],
)
def test_real_acceptances_give_the_venue_and_its_year(arxiv_id, venue):
    assert venue_acceptance(_api_records()[arxiv_id].comments) == venue


@pytest.mark.parametrize(
    "arxiv_id",
    [
        "2007.10224",  # (v0), Submitted to IEEE International Workshop ... (AIST 2020)
        "2102.08864",  # Currently under review at Journal of Software Testing ...
        "cs/0503050",  # 24 pages, 3 figures, submitted to Software Testing, Verification and Reliability (STVR)
        "1809.08100",  # Accepted at 10th IEEE International Conference on ... (no short name: not guessed)
        "1601.06222",  # Accepted to the Workshop ... at ICPADS 2015 (not a listed venue)
        "1306.4664",  # to appear in "Algorithmica". Part of this work has been presented at the ICALP 2011 ...
        "1812.11470",  # GUI testing, Functional testing, ... Systematic literature review
    ],
)
def test_real_submissions_reviews_and_unknown_venues_give_none(arxiv_id):
    assert venue_acceptance(_api_records()[arxiv_id].comments) == ""


def test_a_bare_venue_and_year_before_the_code_link_is_an_acceptance():
    record = _abs("2101.04061.abs")  # Comments: CVPR 2021. Codes: https://github.com/TencentARC/GFPGAN
    assert venue_acceptance(record.comments) == "CVPR 2021"
    assert code_link(record.abstract, record.comments) == "https://github.com/TencentARC/GFPGAN"


@pytest.mark.parametrize(
    "comments",
    [
        "Submitted to NeurIPS 2026",
        "Under review at ICLR 2026",
        "ICLR 2026 submission; code at https://github.com/a/b",
        "Accepted pending revisions; submitted to the NeurIPS 2026 workshop",
        "This is an extended version of our ICML 2025 paper",
        "ACL 12 pages",
        "DOI 10.1109/ICST.2017.52",
    ],
)
def test_what_is_not_an_acceptance_stays_out(comments):
    assert venue_acceptance(comments) == ""


@pytest.mark.parametrize(
    ("comments", "venue"),
    [
        ("Accepted at NeurIPS 2026", "NeurIPS 2026"),
        ("ICLR 2026 oral", "ICLR 2026 oral"),
        ("NeurIPS 2025 (Spotlight)", "NeurIPS 2025 spotlight"),
        ("Published as a conference paper at ICLR 2025", "ICLR 2025"),
        ("Accepted by AAAI-26", "AAAI 2026"),
        ("Submitted to ICML 2025; accepted at NeurIPS'25 workshop", "NeurIPS 2025 workshop"),
        ("Accepted to Findings of EMNLP 2024", "EMNLP 2024 findings"),
    ],
)
def test_the_product_phrases_give_venue_year_and_track(comments, venue):
    assert venue_acceptance(comments) == venue


# --- code links, on real abstracts and comments ----------------------------------------


def test_real_abstracts_give_their_github_links_without_tex_or_punctuation():
    feed = parse_feed((FIXTURES / "arxiv_rss" / "arxiv_rss_stat_2024-03-26_emanuelealiverti.xml").read_bytes())
    found = {record.arxiv_id: code_link(record.abstract, record.comments) for record in feed.records}
    assert found["2403.16883"] == "https://github.com/v18nguye/GLAD"  # \url{...}.
    assert found["2306.03111"] == "https://github.com/kaist-silab/bootgen"  # \href{...}{...}.
    assert found["2310.01327"] == "https://github.com/ServiceNow/TACTiS"  # a full stop after it
    assert found["2310.02710"] == "https://github.com/dbsxodud-11/ls_gfn"
    assert found["2211.09284"] == ""  # a project page elsewhere is not a code link
    assert sum(1 for url in found.values() if url) == 5


def test_a_link_wrapped_onto_its_own_comment_line_is_found():
    assert code_link("", _abs("2103.17249.abs").comments) == "https://github.com/orpatashnik/StyleCLIP"
    assert code_link("", _abs("2108.10257.abs").comments) == "https://github.com/JingyunLiang/SwinIR"


def test_a_hugging_face_model_is_a_code_link_but_its_paper_pages_and_cdn_are_not():
    papers = json.loads((FIXTURES / "hf_daily" / "sotawhat_hf_daily_papers_2026-06-12.json").read_text())
    summary = next(item["paper"]["summary"] for item in papers if item["paper"]["id"] == "2606.13392")
    released = next(sentence for sentence in summary.split(". ") if "huggingface.co/" in sentence)
    assert code_link(released) == "https://huggingface.co/MiniMaxAI/MiniMax-M3"
    assert code_link(summary) == "https://github.com/MiniMax-AI/MSA"  # the first of its two links
    thumbnail = next(item["thumbnail"] for item in papers if item["paper"]["id"] == "2606.13392")
    assert code_link(thumbnail) == ""  # cdn-thumbnails.huggingface.co
    assert code_link("https://huggingface.co/papers/2606.13392") == ""
    assert code_link("see https://github.com/SAP") == ""  # an owner, no repository


# --- ingest and the fill command --------------------------------------------------------


@pytest.mark.django_db
def test_ingest_stores_the_latest_versions_signals_and_a_revision_replaces_them():
    record = _abs("2101.04061.abs")
    f.store(record, at=timezone.now())
    paper = f.paper("2101.04061")
    assert (paper.code_url, paper.venue) == ("https://github.com/TencentARC/GFPGAN", "CVPR 2021")
    assert paper.popularity == pytest.approx(
        popularity(upvotes=0, code_url=paper.code_url, venue=paper.venue, version_count=2)
    )
    revised = f.record("2101.04061", versions=3, comments="Submitted to ICCV 2021", abstract="No code yet.")
    f.store(revised, at=timezone.now())
    paper.refresh_from_db()
    assert (paper.code_url, paper.venue, paper.version_count) == ("", "", 3)


@pytest.mark.django_db
def test_community_upvotes_are_copied_onto_the_paper_and_raise_its_score():
    f.store(f.record("2611.00001"), at=timezone.now())
    hf = f.source("hf_daily")
    community_pick_upsert_many(source=hf, picks=[PickRecord("2611.00001", date(2026, 11, 12), upvotes=20)])
    paper = f.paper("2611.00001")
    assert paper.upvotes == 20
    assert paper.popularity == pytest.approx(popularity(upvotes=20, code_url="", venue="", version_count=1))
    community_pick_upsert_many(source=hf, picks=[PickRecord("2611.00001", date(2026, 11, 13), upvotes=55)])
    assert f.paper("2611.00001").upvotes == 55


@pytest.mark.django_db
def test_the_fill_command_fills_stored_papers_in_batches_and_analyzes(capsys):
    f.store(
        f.record("2611.00001", comments="Accepted at ICML 2026. Code: https://github.com/org/repo."),
        f.record("2611.00002", comments="Under review at ICLR 2027"),
        f.record("2611.00003", abstract="Weights at https://huggingface.co/org/model."),
        at=timezone.now(),
    )
    # As stored before ingest detected anything: no signals, upvotes not copied.
    f.pick(f.paper("2611.00003"), f.source("hf_daily"), upvotes=7)
    Paper.objects.update(code_url="", venue="")
    call_command("fill_paper_signals", "--batch", "2")
    out = capsys.readouterr()
    assert "3 papers read: 2 code links or venues written, 1 upvotes copied, 0 skipped" in out.out
    assert "last id" in out.err
    rows = dict(Paper.objects.values_list("arxiv_id", "venue"))
    assert rows == {"2611.00001": "ICML 2026", "2611.00002": "", "2611.00003": ""}
    assert f.paper("2611.00001").code_url == "https://github.com/org/repo"
    assert (f.paper("2611.00003").code_url, f.paper("2611.00003").upvotes) == ("https://huggingface.co/org/model", 7)
    with connection.cursor() as cursor:
        # ANALYZE ran after the fill: the statistics know the new venue (two of three papers without one).
        cursor.execute("SELECT n_distinct FROM pg_stats WHERE tablename = 'harvest_paper' AND attname = 'venue'")
        assert cursor.fetchone()[0] in (2, pytest.approx(-2 / 3))
    # Nothing left to change: a second run writes nothing.
    assert paper_signals_fill(batch_size=2).changed == 0


@pytest.mark.django_db
def test_odd_text_never_makes_a_value_its_column_cannot_hold():
    too_long = "https://gitlab.com/group/" + "sub/" * 150 + "project"
    f.store(
        f.record("2611.00001", abstract=f"Code: {too_long} and https://github.com/org/repo", comments="ICML"),
        f.record("2611.00002", comments="Accepted at NeurIPS 2026 " + "oral " * 40),
        at=timezone.now(),
    )
    assert f.paper("2611.00001").code_url == "https://github.com/org/repo"  # the one a column can hold
    assert f.paper("2611.00002").venue == "NeurIPS 2026 oral"
    assert paper_signals_fill(batch_size=1).skipped == 0
