"""Research records: saving with state stamps, tags (one per spelling, rename,
merge, delete), bulk changes limited to the owner's records, opening a paper
as the last read version, saved papers' revisions in the trail, and an
account's deletion taking its records and tags."""

from __future__ import annotations

import pytest

from accounts.follows.services import follow_create, follow_delete
from accounts.models import User
from accounts.records.models import Record, RecordTag, Tag
from accounts.records.selectors import RecordFilters, record_counts, record_page, records_for_papers
from accounts.records.services import (
    RecordError,
    record_opened,
    record_remove,
    record_save,
    records_add_tag,
    records_remove,
    records_set_state,
    tag_delete,
    tag_merge,
    tag_rename,
)
from accounts.services import user_delete
from accounts.trail.selectors import trail_page
from accounts.trail.services import trail_dismiss, trail_mark_read
from harvest.models import Paper
from tests.accounts.conftest import ago, card_of, cards, harvest, record

pytestmark = pytest.mark.django_db


def paper(arxiv_id: str) -> Paper:
    return Paper.objects.get(arxiv_id=arxiv_id)


@pytest.fixture
def papers(db):
    harvest(
        record("2611.00001", title="Sparse attention", abstract="Long documents.", categories=["cs.CL"]),
        record("2611.00002", title="Graph kernels", abstract="Molecules and kernels.", categories=["cs.LG"]),
        record("2611.00003", title="Another look", abstract="Nothing here.", categories=["cs.LG", "cs.CL"]),
        at=ago(days=3),
    )


def test_saving_stamps_each_state_and_a_second_save_updates(user, papers):
    saved, created = record_save(user=user, paper=paper("2611.00001"))
    assert created and saved.state == "to_read" and saved.to_read_at is not None and saved.read_at is None
    again, created = record_save(user=user, paper=paper("2611.00001"), state="read", note="**good**")
    assert not created and again.pk == saved.pk and again.state == "read" and again.read_at is not None
    assert again.note_updated_at is not None and Record.objects.filter(user=user).count() == 1
    with pytest.raises(RecordError) as bad:
        record_save(user=user, paper=paper("2611.00001"), state="skimmed")
    assert bad.value.field == "state"
    with pytest.raises(RecordError) as long_note:
        record_save(user=user, paper=paper("2611.00001"), note="x" * 50_001)
    assert long_note.value.field == "note"
    assert Record.objects.get(pk=saved.pk).state == "read"


def test_tags_are_one_per_spelling_and_replace_the_records_tags(user, papers):
    saved, _ = record_save(user=user, paper=paper("2611.00001"), tags=["RL", " rl ", "Graphs"])
    assert sorted(Tag.objects.filter(user=user).values_list("name", flat=True)) == ["Graphs", "RL"]
    record_save(user=user, paper=paper("2611.00002"), tags=["rl"])
    assert Tag.objects.filter(user=user).count() == 2
    record_save(user=user, paper=paper("2611.00001"), tags=["Graphs"])
    assert records_for_papers(user=user, paper_ids=[saved.paper_id])[saved.paper_id].tag_names == ["Graphs"]
    with pytest.raises(RecordError) as many:
        record_save(user=user, paper=paper("2611.00001"), tags=[f"t{n}" for n in range(51)])
    assert many.value.field == "tags"


def test_rename_refuses_a_clash_merge_moves_records_and_delete_keeps_records(user, papers):
    record_save(user=user, paper=paper("2611.00001"), tags=["rl", "graphs"])
    record_save(user=user, paper=paper("2611.00002"), tags=["reinforcement"])
    rl, graphs, reinforcement = (Tag.objects.get(user=user, name=n) for n in ("rl", "graphs", "reinforcement"))
    with pytest.raises(RecordError) as clash:
        tag_rename(user=user, tag_id=rl.pk, name="GRAPHS")
    assert clash.value.field == "name"
    assert tag_rename(user=user, tag_id=rl.pk, name="RL").name == "RL"
    tag_merge(user=user, tag_id=reinforcement.pk, into_id=rl.pk)
    counts = {tag.name: n for tag, n in record_counts(user=user).by_tag}
    assert counts == {"graphs": 1, "RL": 2}
    tag_delete(user=user, tag_id=graphs.pk)
    assert Record.objects.filter(user=user).count() == 2 and not Tag.objects.filter(pk=graphs.pk).exists()
    stranger = User.objects.create_user("stranger")
    with pytest.raises(RecordError):
        tag_rename(user=stranger, tag_id=rl.pk, name="mine")
    with pytest.raises(RecordError) as into:
        tag_merge(user=user, tag_id=rl.pk, into_id=Tag.objects.create(user=stranger, name="x").pk)
    assert into.value.field == "into"


def test_bulk_changes_touch_only_the_owners_records(user, other_user, papers):
    mine = [record_save(user=user, paper=paper(a))[0].pk for a in ("2611.00001", "2611.00002")]
    theirs, _ = record_save(user=other_user, paper=paper("2611.00001"))
    assert records_set_state(user=user, record_ids=[*mine, theirs.pk], state="reading") == 2
    assert records_add_tag(user=user, record_ids=[*mine, theirs.pk], name="batch") == 2
    assert Record.objects.get(pk=theirs.pk).state == "to_read"
    assert not RecordTag.objects.filter(record_id=theirs.pk).exists()
    assert records_remove(user=user, record_ids=[mine[0], theirs.pk]) == 1
    assert Record.objects.filter(pk=theirs.pk).exists()
    assert record_remove(user=user, paper=paper("2611.00002")) and not Record.objects.filter(user=user).exists()
    assert Tag.objects.filter(user=user, name="batch").exists()


def test_filters_sorts_and_search_over_notes_titles_and_abstracts(user, other_user, papers):
    record_save(user=user, paper=paper("2611.00001"), tags=["nlp"], note="Compare with Longformer")
    record_save(user=user, paper=paper("2611.00002"), state="read")
    record_save(user=user, paper=paper("2611.00003"), tags=["nlp"], state="reading")
    record_save(user=other_user, paper=paper("2611.00002"), note="Longformer is theirs")
    nlp = Tag.objects.get(user=user, name="nlp")

    def ids(**filters) -> list[str]:
        rows, total = record_page(user=user, filters=RecordFilters(**filters), page=1, size=20)
        assert total == len(rows)
        return [row.paper.arxiv_id for row in rows]

    assert ids() == ["2611.00003", "2611.00002", "2611.00001"]
    assert ids(sort="title") == ["2611.00003", "2611.00002", "2611.00001"]
    assert ids(tag=nlp.pk) == ["2611.00003", "2611.00001"]
    assert ids(state="read") == ["2611.00002"]
    assert ids(category="cs.CL") == ["2611.00003", "2611.00001"]
    assert ids(q="longformer") == ["2611.00001"]  # a note; the other user's note is not searched
    assert ids(q="kernels") == ["2611.00002"]  # an abstract, through the library's full-text index
    assert ids(tag=nlp.pk, state="reading", q="look") == ["2611.00003"]
    counts = record_counts(user=user)
    assert counts.total == 3 and counts.by_state == {"to_read": 1, "reading": 1, "read": 1}


def test_opening_sets_the_last_read_version_and_revised_since_read_finds_it(user, papers):
    saved, _ = record_save(user=user, paper=paper("2611.00001"))
    assert record_opened(user=user, paper=paper("2611.00001")).last_read_version == 1
    assert record_opened(user=other_user_of(user), paper=paper("2611.00001")) is None
    harvest(record("2611.00001", versions=2), at=ago(hours=2))
    rows, _ = record_page(user=user, filters=RecordFilters(revised=True), page=1, size=20)
    assert [row.pk for row in rows] == [saved.pk]
    record_opened(user=user, paper=paper("2611.00001"))
    assert record_page(user=user, filters=RecordFilters(revised=True), page=1, size=20) == ([], 0)


def other_user_of(user: User) -> User:
    return User.objects.create_user(f"not-{user.username}")


def test_a_new_version_of_a_saved_paper_lands_in_the_trail_without_any_follow(user, papers):
    record_save(user=user, paper=paper("2611.00001"))
    record_opened(user=user, paper=paper("2611.00001"))
    result = harvest(record("2611.00001", versions=2), at=ago(hours=2))
    (card,) = cards(user)
    assert result.created == 1 and card.kind == "revision" and card.unread and card.version_number == 2
    assert card.follow_ids == set()
    # Opening the paper clears the card and moves the last read version.
    record_opened(user=user, paper=paper("2611.00001"))
    card = card_of(user, "2611.00001")
    assert not card.unread and Record.objects.get(user=user).last_read_version == 2
    # A read card reopens for the next version; a dismissed one stays out.
    harvest(record("2611.00001", versions=3), at=ago(hours=1))
    card = card_of(user, "2611.00001")
    assert card.unread and card.version_number == 3
    trail_dismiss(user=user, item_id=card.paper_id)
    harvest(record("2611.00001", versions=4), at=ago(minutes=30))
    assert [e.paper.arxiv_id for e in trail_page(user=user).entries] == []
    card = card_of(user, "2611.00001")
    assert card.dismissed and not card.unread


def test_a_version_the_reader_already_read_or_a_new_paper_brings_no_card(user, papers):
    record_save(user=user, paper=paper("2611.00002"))
    harvest(record("2611.00002"), record("2611.00004"), at=ago(hours=2))  # nothing new for 00002
    assert not cards(user)


def test_a_follow_and_the_record_share_one_card_and_deleting_the_follow_keeps_it(user, papers):
    follow = follow_create(user=user, kind="category", value={"code": "cs.CL"}, name="CL")
    record_save(user=user, paper=paper("2611.00001"))
    card = card_of(user, "2611.00001")  # the follow's back-fill
    trail_mark_read(user=user, item_ids=[card.paper_id])
    harvest(record("2611.00001", versions=2, categories=["cs.CL"]), at=ago(hours=1))
    assert [c.paper_id for c in cards(user)].count(card.paper_id) == 1
    card = card_of(user, "2611.00001")
    assert card.unread and card.version_number == 2
    follow_delete(follow=follow)
    assert card_of(user, "2611.00001") is not None
    assert card_of(user, "2611.00003") is None


def test_deleting_an_account_removes_its_records_and_tags(user, other_user, papers):
    record_save(user=user, paper=paper("2611.00001"), tags=["mine"], note="private")
    record_save(user=other_user, paper=paper("2611.00001"), tags=["theirs"])
    user_delete(user=user)
    assert list(Tag.objects.values_list("name", flat=True)) == ["theirs"]
    assert Record.objects.count() == 1 and RecordTag.objects.count() == 1
