"""What changed between two versions, section by section (digests/revision_diff.py),
on the real recorded arXiv HTML paper and a revision of it made by the edits
revisions make: a section inserted (renumbering those after it), one
removed, one rewritten, a number changed; and the revision's reading asked
from that diff, not from the two abstracts."""

from __future__ import annotations

import dataclasses
import gzip
import re
from functools import cache

import pytest

from digests.models import GuidedReading
from digests.numbers import figures
from digests.revision_diff import diff_text, section_diff
from digests.services import Outcome, reading_write, readings_create_for_versions
from harvest.fulltext.document import Document, Paragraph, Section
from harvest.fulltext.html_parser import parse_html
from harvest.fulltext.models import FullText
from harvest.models import Version
from tests.digests.conftest import make_record, store
from tests.digests.fake_anthropic import default_reading
from tests.replay_server import fixture_bytes

NEW_SECTION = Section(
    heading="Scaling to larger models",
    level=2,
    anchor="S5.SS1",
    number="5.1",
    paragraphs=(Paragraph("We repeat the multiple-choice experiment on a 70B model and find 91.4% agreement."),),
)
NEW_CONCLUSION = "We retract the claim about backdoors and leave trigger elicitation to later work."


@cache
def v1() -> Document:
    return parse_html(gzip.decompress(fixture_bytes("fulltext/2501.11120v1.html.gz")))


def _renumbered(section: Section) -> Section:
    """Old 5.1 and 5.2 become 5.2 and 5.3 once a 5.1 is inserted before them."""
    match = re.fullmatch(r"5\.(\d+)", section.number)
    if not match:
        return section
    n = int(match.group(1)) + 1
    return dataclasses.replace(section, number=f"5.{n}", anchor=f"S5.SS{n}")


@cache
def changed_number() -> tuple[str, str]:
    """A result of 5.2 (5.3 in the revision) restated: 0.82 becomes 0.827."""
    written = next(w for p in v1().section("S5.SS2").paragraphs for w, _v, _pct in figures(p.text) if "." in w)
    return written, written + "7"


@cache
def v2() -> Document:
    old, new = changed_number()
    sections = []
    for section in v1().sections:
        if section.anchor == "S4.SS3":
            continue
        if section.anchor == "S5.SS1":
            sections.append(NEW_SECTION)
        if section.anchor == "S5.SS2":
            paragraphs = tuple(Paragraph(p.text.replace(old, new, 1), p.anchor, p.kind) for p in section.paragraphs)
            section = dataclasses.replace(section, paragraphs=paragraphs)
        if section.anchor == "S8":
            section = dataclasses.replace(section, paragraphs=(Paragraph(NEW_CONCLUSION),))
        sections.append(_renumbered(section))
    # The figures and tables of the renumbered sections move with them.
    moved = {"S5.SS1": "S5.SS2", "S5.SS2": "S5.SS3"}
    captions = tuple(dataclasses.replace(c, section=moved.get(c.section, c.section)) for c in v1().captions)
    return dataclasses.replace(v1(), sections=tuple(sections), captions=captions)


def test_a_version_compared_with_itself_has_no_changes():
    diff = section_diff(v1(), v1())
    assert diff.is_empty and diff.unchanged == 55
    assert "the same in both versions" in diff_text(diff, previous=1, current=2)


def test_added_removed_rewritten_sections_and_changed_numbers_are_found_despite_renumbering():
    old, new = changed_number()

    diff = section_diff(v1(), v2())

    assert [(u.ref, u.heading) for u in diff.added] == [("5.1", "Scaling to larger models")]
    assert [(u.ref, u.heading) for u in diff.removed] == [("4.3", "Eliciting the trigger with reversal training")]
    assert [(c.ref, c.heading) for c in diff.rewritten] == [("8", "Conclusion")]
    (edited,) = diff.edited
    assert (edited.ref, edited.heading) == ("5.3", "Two personas in dialogue training")
    assert edited.similarity > 0.9
    assert (edited.numbers_removed, edited.numbers_added) == ((old,), (new,))
    assert diff.numbers_changed[-1] == edited
    assert diff.unchanged == 55 - 1 - 2  # all but the removed, the rewritten and the edited (5.2 moved unchanged)


def test_a_heading_naming_a_renumbered_section_still_pairs():
    """As in 2405.16727's appendix from v1 to v2: "Language Modeling (Section 4.3)" became "(Section 4.4)"."""
    old, new = changed_number()

    def named(reference: str, *, restated: bool) -> Document:
        sections = []
        for section in v1().sections:
            if section.anchor == "S5.SS2":
                text = (p.text.replace(old, new, 1) if restated else p.text for p in section.paragraphs)
                paragraphs = tuple(
                    Paragraph(t, p.anchor, p.kind) for t, p in zip(text, section.paragraphs, strict=True)
                )
                section = dataclasses.replace(
                    section, heading=f"{section.heading} ({reference})", paragraphs=paragraphs
                )
            sections.append(section)
        return dataclasses.replace(v1(), sections=tuple(sections))

    for before, after in (("Section 4.3", "Section 4.4"), ("Altabaa et al. (2024)", "Altabaa et al. [21]")):
        diff = section_diff(named(before, restated=False), named(after, restated=True))

        assert not (diff.added or diff.removed or diff.rewritten)  # the same section, edited: not renamed
        (edited,) = diff.edited
        assert edited.heading.endswith(f"({after})") and edited.numbers_added == (new,)


def test_the_diff_reads_as_lines_for_the_prompt():
    old, new = changed_number()
    text = diff_text(section_diff(v1(), v2()), previous=1, current=2)

    assert "Added in v2: §5.1 Scaling to larger models. Opens: We repeat the multiple-choice experiment" in text
    assert "Removed from v1: §4.3 Eliciting the trigger with reversal training." in text
    assert "Rewritten: §8 Conclusion (" in text and NEW_CONCLUSION in text
    numbers = f"no longer stated {old}; newly stated {new}."
    assert f"Numbers in §5.3 Two personas in dialogue training: {numbers}" in text


@pytest.mark.django_db
def test_a_revisions_what_changed_is_asked_from_the_section_diff_not_the_abstracts(stand_in):
    def reading(params: dict) -> dict:
        out = default_reading(params)
        out["en"]["changes"] = "v2 adds a scaling section (§5.1) and drops trigger elicitation."
        out["zh"]["changes"] = "第二版新增规模扩展一节，删去触发词诱导。"
        out["sources"] = {"problem": [], "method": [], "results": [], "limitations": [], "changes": ["5.1"]}
        return out

    stand_in.reading_for = reading
    store(make_record("2501.11120", title=v1().title, abstract=v1().abstract))
    store(make_record("2501.11120", title=v1().title, abstract=v1().abstract, versions=2))
    first, second = Version.objects.filter(paper__arxiv_id="2501.11120").order_by("number")
    for version, document in ((first, v1()), (second, v2())):
        FullText.objects.create(version=version, status="done", origin="html", document=document.compress())
    (reading_id,) = readings_create_for_versions(version_ids=[second.pk], dispatch=False)

    assert reading_write(reading_id=reading_id) == Outcome.DONE

    (sent,) = stand_in.sent()
    assert "<revision_diff>" in sent["user"] and "<previous_version" not in sent["user"]
    assert "Added in v2: §5.1 Scaling to larger models" in sent["user"]
    stored = GuidedReading.objects.get(pk=reading_id)
    assert stored.content["en"]["changes"].startswith("v2 adds a scaling section")
    (cite,) = stored.citations["fields"]["changes"]
    assert cite["url"] == "https://arxiv.org/html/2501.11120v2#S5.SS1"
