"""Real metadata made readable at ingest (harvest/text_repair.py), for every
source: TeX letters decoded outside math, double-encoded UTF-8 repaired; the
stored library brought to the same form by a migration; author follows that
match the name however it is written; BibTeX that reads back."""

from __future__ import annotations

import importlib
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser import middlewares
from django.apps import apps
from django.core.management import call_command

from accounts.follows.names import normalise_name
from accounts.records.export import export_citations
from accounts.records.services import record_save
from harvest.models import Author, Authorship, Paper, PaperEmbedding, Version
from harvest.sources.arxiv_rss import parse_feed
from harvest.sources.oai import parse_list_records
from harvest.text_repair import readable
from tests.harvest import oai_pages
from tests.replay_server import fixture_bytes

KAGGLE = Path(__file__).parents[1] / "fixtures" / "kaggle" / "arxiv-metadata-oai-snapshot.sample.jsonl"
TEX_LETTER = ("\\'", '\\"', "\\v{", "\\c{", "\\~", "\\`", "\\^")
migration = importlib.import_module("harvest.migrations.0015_readable_text")


@pytest.mark.parametrize(
    ("raw", "readable_form"),
    [
        # arXiv's own announcement of 2025-08-20, and the recorded Kaggle and RSS records.
        (
            r"Nikola Pi\v{z}urica, Nikola Milovi\'c, Igor Jovan\v{c}evi\'c",
            "Nikola Pižurica, Nikola Milović, Igor Jovančević",
        ),
        (
            r"Rastislav \v{S}r\'amek, Bro\v{n}a Brejov\'a, Tom\'a\v{s} Vina\v{r}",
            "Rastislav Šrámek, Broňa Brejová, Tomáš Vinař",
        ),
        (r"Franz G\"ahler (Institut f\"ur Theoretische Physik)", "Franz Gähler (Institut für Theoretische Physik)"),
        (
            r"I\~naki Garc\'ia-Etxebarria, G{\"o}del, Stra\ss e, Ko\c{c}, \L{}ukasz, {\'\i}",
            "Iñaki García-Etxebarria, Gödel, Straße, Koç, Łukasz, í",
        ),
        # Math stays for KaTeX; other commands stay as written; escapes become their letter.
        (r"$\varepsilon$-nets with \'e and $\v{z}$", r"$\varepsilon$-nets with é and $\v{z}$"),
        (
            r"R\&D at 50\% as \cite{x} and \textbf{y} say, $\delta$",
            r"R&D at 50% as \cite{x} and \textbf{y} say, $\delta$",
        ),
        # UTF-8 read as Latin-1 once too often (the recorded arXiv API replies), and text that is fine.
        ("BetÃ¼l KaragÃ¶z, Dirk WÃ¼bben", "Betül Karagöz, Dirk Wübben"),
        ("Bayes error at most $Î\u00b4$ and prior $(Ï\x80, 1-Ï\x80)$", "Bayes error at most $δ$ and prior $(π, 1-π)$"),
        ("naïve café, Ångström, 深度学习", "naïve café, Ångström, 深度学习"),
        # A DEL before the accent (arXiv's 2016 OAI record of 1602.05990); tabs and line breaks stay.
        ('Pl\x7f\\"ucker Correction Problem', "Plücker Correction Problem"),
        ("one\ttwo\nthree\r\n", "one\ttwo\nthree\r\n"),
    ],
)
def test_tex_letters_and_mis_decoded_utf8_become_readable_and_nothing_else_changes(raw, readable_form):
    assert readable(raw) == readable_form
    assert readable(readable_form) == readable_form


def test_author_follows_match_a_name_however_it_is_written():
    assert (
        normalise_name("Nikola Pižurica") == normalise_name("Nikola Pizurica") == normalise_name(r"Nikola Pi\v{z}urica")
    )
    assert normalise_name(r"J.-P. M\"uller") == normalise_name("j p muller")


@pytest.mark.django_db
def test_a_snapshot_import_stores_readable_names_titles_and_abstracts_with_math_kept():
    call_command("import_snapshot", str(KAGGLE), stdout=None)
    paper = Paper.objects.get(arxiv_id="0704.0062")
    assert paper.authors == ["Rastislav Šrámek", "Broňa Brejová", "Tomáš Vinař"]
    assert paper.submitter == "Tomáš Vinař"
    assert Author.objects.filter(name="Tomáš Vinař").exists()
    for title, authors in Paper.objects.values_list("title", "authors"):
        assert not any(mark in text for text in (title, *authors) for mark in TEX_LETTER), (title, authors)
    assert not Author.objects.filter(name__contains="\\").exists()
    # Words are decoded (Koll\'ar is Kollár), math is not: $\Lambda_{\alpha}$ stays for KaTeX.
    assert "Kollár's injectivity" in Paper.objects.get(arxiv_id="0704.0073").abstract
    assert "$\\Lambda_{\\alpha}$" in Paper.objects.get(arxiv_id="0704.0005").abstract


def test_the_announcement_feed_decodes_its_names_and_abstracts():
    feed = parse_feed(fixture_bytes("arxiv_rss/arxiv_rss_stat_2024-03-26_emanuelealiverti.xml"))
    names = {name for record in feed.records for name in record.authors}
    assert {"Borja Rodríguez-Gálvez", "José M. F. Moura"} <= names
    assert any("Matérn" in record.abstract for record in feed.records)
    assert not any("\\'" in name for name in names)


def test_oai_pmh_decodes_the_tex_of_its_author_list():
    recorded = oai_pages.recorded_records()["0704.0471"]
    names = r"Nikola Pi\v{z}urica, Nikola Milovi\'c, Igor Jovan\v{c}evi\'c"
    page = parse_list_records(
        oai_pages.list_records_page([oai_pages.with_field(recorded, "authors", names)], token=None)
    )
    [record] = page.records
    assert record.authors == ["Nikola Pižurica", "Nikola Milović", "Igor Jovančević"]


@pytest.mark.django_db
def test_the_migration_brings_stored_text_to_the_same_form_and_merges_authors_that_become_one():
    tex, plain = r"Nikola Pi\v{z}urica", "Nikola Pižurica"
    call_command("import_snapshot", str(KAGGLE), stdout=None)
    old = Paper.objects.get(arxiv_id="0704.0001")
    other = Paper.objects.get(arxiv_id="0704.0002")
    Paper.objects.filter(pk=old.pk).update(
        title=r"G{\"o}del numbers in K\"ahler spaces, $\v{z}$", authors=[tex], search_pending=False
    )
    Version.objects.filter(paper=old).update(authors=tex)
    Authorship.objects.filter(paper__in=[old, other]).delete()
    as_tex, as_plain = Author.objects.create(name=tex), Author.objects.create(name=plain)
    Authorship.objects.create(paper=old, author=as_tex, position=0)
    Authorship.objects.create(paper=other, author=as_plain, position=0)
    PaperEmbedding.objects.create(paper=old, model="m", vector=b"\0\0", text_hash="x")

    migration.papers_readable(apps, None)
    migration.authors_readable(apps, None)

    old.refresh_from_db()
    assert old.title == r"Gödel numbers in Kähler spaces, $\v{z}$" and old.authors == [plain]
    assert old.search_pending and not PaperEmbedding.objects.filter(paper=old).exists()
    assert Version.objects.filter(paper=old).first().authors == plain
    assert not Author.objects.filter(pk=as_tex.pk).exists()
    assert set(Authorship.objects.filter(author=as_plain).values_list("paper_id", flat=True)) == {old.pk, other.pk}


@pytest.mark.django_db
def test_bibtex_of_a_paper_harvested_with_tex_names_reads_back_to_its_names_in_order(django_user_model):
    call_command("import_snapshot", str(KAGGLE), stdout=None)
    user = django_user_model.objects.create_user("reader", password="x")
    record_save(user=user, paper=Paper.objects.get(arxiv_id="0704.0062"))
    text = export_citations(user=user, format="bibtex")
    library = bibtexparser.parse_string(
        text, append_middleware=[middlewares.LatexDecodingMiddleware(), middlewares.SeparateCoAuthors()]
    )
    [entry] = library.entries
    assert entry["author"] == ["Rastislav Šrámek", "Broňa Brejová", "Tomáš Vinař"]
    assert entry.key.startswith("sramek2007") and "textbackslash" not in text
