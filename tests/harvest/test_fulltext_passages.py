"""A version's full text as passages, on the recorded papers: arXiv's HTML of
2501.11120v1 and a real arXiv PDF cut within sections and a length bound,
labelled with the section a citation names and the anchor arXiv opens;
stored with the search model's vectors, kept while the text is unchanged and
dropped when a new text is read; and the passages nearest a question."""

from __future__ import annotations

import pytest

from harvest.embeddings.encoders import model_name
from harvest.fulltext import chunks
from harvest.fulltext.chunks import CHUNK_WORDS, Chunk
from harvest.fulltext.fetching import Fetched
from harvest.fulltext.models import FullText, Passage
from harvest.fulltext.pdf_parser import parse_pdf
from harvest.fulltext.selectors import nearest_passages, section_url, versions_awaiting_passages
from harvest.fulltext.services import _store, store_passages, versions_without_passages
from harvest.fulltext.tasks import embed_passages
from tests.harvest.fulltext_passages import RememberingEncoder, html_document, store_fixture_paper
from tests.replay_server import fixture_bytes


@pytest.fixture(scope="module")
def html_chunks() -> list[Chunk]:
    return chunks.chunks(html_document())


def test_passages_stay_within_a_section_and_the_length_bound(html_chunks):
    document = html_document()
    assert len(html_chunks) > 50
    assert all(0 < len(chunk.text.split()) <= CHUNK_WORDS for chunk in html_chunks)
    assert [chunk.position for chunk in html_chunks] == list(range(len(html_chunks)))
    by_heading: dict[str, list[str]] = {}
    for section in document.sections:
        by_heading.setdefault(section.heading, []).append(" ".join(p.text for p in section.paragraphs))
    # Each passage is a run of one section's own text, never two sections joined.
    for chunk in html_chunks:
        assert any(chunk.text in " ".join(text.split()) for text in by_heading[chunk.heading]), chunk.position
    assert sum(len(chunk.text.split()) for chunk in html_chunks) <= chunks.PAPER_WORDS


def test_passages_are_labelled_with_the_section_a_citation_names_and_its_anchor(html_chunks):
    labelled = {(chunk.heading, chunk.section, chunk.anchor) for chunk in html_chunks}
    assert ("Introduction", "1", "S1") in labelled
    assert ("Design", "3.1.1", "S3.SS1.SSS1") in labelled
    # A \paragraph has no number: it is cited and linked as the subsection it sits in.
    assert ("Make Me Say rules", "3.2.1", "S3.SS2.SSS1") in labelled
    # "Appendix A" is cited as A; an unnumbered section by its heading.
    assert ("Author contributions", "A", "A1") in labelled
    assert ("Acknowledgments", "Acknowledgments", "Sx1") in labelled


def test_a_pdf_section_of_one_long_paragraph_is_cut_at_sentence_ends_and_keeps_its_page():
    document = parse_pdf(fixture_bytes("fulltext/2302.07302v1.pdf"), max_pages=80, seconds=120)
    cut = chunks.chunks(document)
    scenario = [chunk for chunk in cut if chunk.section == "4.2"]  # "Example User Scenario", 1,905 words
    assert len(scenario) >= 12 and all(chunk.page == 6 and chunk.anchor == "" for chunk in scenario)
    assert all(len(chunk.text.split()) <= CHUNK_WORDS for chunk in cut)
    ends = [chunk.text[-1] in ".!?)" for chunk in scenario[:-1]]
    assert sum(ends) >= len(ends) * 0.8, [chunk.text[-30:] for chunk in scenario]


def test_the_section_link_is_arxivs_html_at_the_anchor_or_the_pdf_at_the_page(settings):
    settings.PAPERTRAIL_ARXIV_HTML_URL = "https://mirror.example.org/html"
    assert section_url(arxiv_id="2501.11120", version=1, anchor="S3.SS2") == (
        "https://mirror.example.org/html/2501.11120v1#S3.SS2"
    )
    assert section_url(arxiv_id="2501.11120", version=1, anchor='S1"><x') == (
        "https://mirror.example.org/html/2501.11120v1#S1%22%3E%3Cx"
    )
    assert section_url(arxiv_id="2302.07302", version=1, page=11).endswith("/pdf/2302.07302v1#page=11")


@pytest.mark.django_db
def test_passages_are_stored_with_vectors_kept_while_the_text_is_the_same_and_dropped_for_a_new_one(monkeypatch):
    version = store_fixture_paper(monkeypatch)
    stored = list(Passage.objects.filter(version=version).order_by("position"))
    assert len(stored) >= 10 and {p.model for p in stored} == {model_name()}
    assert stored[0].section == "1" and stored[0].anchor == "S1" and len(bytes(stored[0].vector)) > 0
    assert versions_without_passages(model=model_name(), limit=10) == []
    assert versions_awaiting_passages(version_ids=[version.pk]) == []
    # The same text again: nothing embedded, nothing rewritten.
    assert store_passages(version_id=version.pk, encoder=RememberingEncoder()) == 0
    # A new text read from arXiv: the old passages go, and the version waits to be cut again.
    row = FullText.objects.select_related("version__paper").get(version=version)
    _store(row, Fetched(document=html_document(), origin="html", etag="", last_modified=""), row.fetched_at)
    assert not Passage.objects.filter(version=version).exists()
    assert versions_without_passages(model=model_name(), limit=10) == [version.pk]
    assert versions_awaiting_passages(version_ids=[version.pk]) == [version.pk]


@pytest.mark.django_db
def test_the_passages_nearest_a_question_come_from_the_section_that_answers_it(monkeypatch):
    version = store_fixture_paper(monkeypatch)
    found = nearest_passages(
        version_ids=[version.pk], question="What are the rules of the Make Me Say game?", per_version=3
    )
    best = found[version.pk]
    assert len(best) == 3 and best[0].score >= best[1].score >= best[2].score
    assert best[0].section.startswith("3.2"), [(p.section, p.heading) for p in best]
    assert nearest_passages(version_ids=[version.pk + 1], question="anything", per_version=3) == {}


@pytest.mark.django_db
def test_the_embedding_task_cuts_the_versions_read_since_on_the_embed_queue(monkeypatch, settings):
    version = store_fixture_paper(monkeypatch)
    Passage.objects.filter(version=version).delete()
    monkeypatch.setattr(chunks, "PAPER_WORDS", 300)  # a few passages: the task embeds with the real model
    assert embed_passages() == f"{Passage.objects.filter(version=version).count()} passages of 1 versions"
    assert Passage.objects.filter(version=version).count() >= 2
    assert embed_passages() == "0 passages of 0 versions"
    assert settings.CELERY_TASK_ROUTES["harvest.embed_passages"] == {"queue": "embed"}
