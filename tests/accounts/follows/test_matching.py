"""What each kind of follow matches when a harvest brings new versions."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from accounts.follows.models import Follow
from accounts.follows.services import author_variant_reject, exclusion_create, follow_create
from accounts.trail.selectors import trail_page
from tests.accounts.conftest import ago, card_of, cards, harvest, record

pytestmark = pytest.mark.django_db


def follow(user, kind, value, **options) -> Follow:
    return follow_create(user=user, kind=kind, value=value, name=f"{kind} {value}", **options)


def trail_ids(user, **filters) -> list[str]:
    return [entry.paper.arxiv_id for entry in trail_page(user=user, size=100, **filters).entries]


def test_category_follow_takes_cross_lists_only_when_asked(user, other_user):
    follow(user, "category", {"code": "cs.CL"})
    follow(other_user, "category", {"code": "cs.CL"}, include_cross_lists=False)
    harvest(
        record("2611.00001", categories=["cs.CL"]),
        record("2611.00002", categories=["cs.LG", "cs.CL"]),
        record("2611.00003", categories=["cs.LG"]),
    )
    assert sorted(trail_ids(user)) == ["2611.00001", "2611.00002"]
    assert trail_ids(other_user) == ["2611.00001"]
    (cross,) = [e for e in trail_page(user=user).entries if e.paper.arxiv_id == "2611.00002"]
    assert cross.matches[0].reason == {"category": "cs.CL", "primary": False}


def test_archive_follow_matches_every_code_of_the_archive(user):
    follow(user, "category", {"code": "cs"}, include_cross_lists=False)
    harvest(
        record("2611.00001", categories=["cs.RO"]),
        record("2611.00002", categories=["math.CO", "cs.DM"]),
        record("2611.00003", categories=["eess.SY"]),
    )
    assert trail_ids(user) == ["2611.00001"]


def test_author_follow_folds_accents_initials_and_hyphens(user):
    follow(user, "author", {"author": "Jean-Pierre Müller", "variants": ["Jean-Pierre Müller", "J.-P. Muller"]})
    harvest(
        record("2611.00001", authors=["JEAN PIERRE MULLER"]),
        record("2611.00002", authors=["Ada Lovelace", "J. P. Müller"]),
        record("2611.00003", authors=["Jean Muller"]),  # another person (or a variant not chosen)
        record("2611.00004", authors=["Pierre Müller"]),
    )
    assert sorted(trail_ids(user)) == ["2611.00001", "2611.00002"]
    reasons = {e.paper.arxiv_id: e.matches[0].reason for e in trail_page(user=user).entries}
    assert reasons["2611.00002"] == {"author": "J. P. Müller", "variant": "j p muller"}


def test_not_this_person_drops_the_paper_for_that_follow_and_its_revisions(user):
    wang = follow(user, "author", {"author": "Wei Wang"})
    harvest(record("2611.00001", authors=["Wei Wang"]), record("2611.00002", authors=["Wei Wang"]), at=ago(days=2))
    item = card_of(user, "2611.00002")
    assert author_variant_reject(user=user, follow_id=wang.pk, paper_id=item.paper_id)
    assert trail_ids(user) == ["2611.00001"]
    harvest(record("2611.00002", authors=["Wei Wang"], versions=2), at=ago(hours=1))
    assert trail_ids(user) == ["2611.00001"]


def test_query_follow_uses_the_library_semantics(user):
    follow(user, "query", {"q": '"language models" -vision'})
    harvest(
        record("2611.00001", title="Large Language Models Reason", abstract="We test modelling."),
        record("2611.00002", title="Vision language models", abstract="Vision and text."),
        record("2611.00003", title="Models of language", abstract="Not the phrase."),
        index=False,  # just harvested: not in the full-text index yet
    )
    assert trail_ids(user) == ["2611.00001"]
    (entry,) = trail_page(user=user).entries
    assert entry.matches[0].reason == {"query": '"language models" -vision', "lexemes": ["languag", "model"]}


def test_filters_follow_matches_what_the_library_view_shows(user):
    follow(user, "filters", {"category": "cs.CV", "q": "segmentation", "author": "ada lovelace"})
    harvest(
        record("2611.00001", categories=["cs.CV"], abstract="Image segmentation.", authors=["Ada Lovelace"]),
        record("2611.00002", categories=["cs.CV"], abstract="Image segmentation.", authors=["Alan Turing"]),
        record("2611.00003", categories=["cs.LG"], abstract="Image segmentation.", authors=["Ada Lovelace"]),
        index=False,
    )
    assert trail_ids(user) == ["2611.00001"]


def test_revisions_come_only_to_follows_that_take_them(user, other_user):
    harvest(record("2611.00001"), at=ago(days=20))  # before either follow, and its back-fill window
    follow(user, "category", {"code": "cs.LG"})
    follow(other_user, "category", {"code": "cs.LG"}, include_revisions=False)
    assert trail_ids(user) == []
    harvest(record("2611.00001", versions=2), at=ago(hours=2))
    (entry,) = trail_page(user=user).entries
    assert (entry.kind, entry.version.number, entry.matches[0].kind) == ("revision", 2, "revision")
    assert trail_ids(other_user) == []


def test_exclusions_keep_a_category_or_query_out_of_every_follow(user):
    follow(user, "category", {"code": "cs.LG"})
    follow(user, "query", {"q": "transformers"})
    exclusion_create(user=user, kind="category", value="cs.CR")
    exclusion_create(user=user, kind="query", value="benchmark")
    harvest(
        record("2611.00001", abstract="Transformers at scale."),
        record("2611.00002", categories=["cs.LG", "cs.CR"], abstract="Transformers at scale."),
        record("2611.00003", abstract="A benchmark of transformers."),
    )
    assert trail_ids(user) == ["2611.00001"]


def test_an_exclusion_removes_the_unread_cards_it_covers(user):
    follow(user, "category", {"code": "cs.LG"})
    harvest(record("2611.00001", abstract="A benchmark."), record("2611.00002"))
    exclusion_create(user=user, kind="query", value="benchmark")
    assert trail_ids(user) == ["2611.00002"]


def test_one_card_per_paper_across_follows_and_days(user):
    lg = follow(user, "category", {"code": "cs.LG"})
    turing = follow(user, "author", {"author": "Alan Turing"})
    harvest(record("2611.00001"), at=ago(days=2))
    harvest(record("2611.00001", versions=2), at=ago(days=1))
    assert len(cards(user)) == 1
    (entry,) = trail_page(user=user).entries
    assert entry.version.number == 2 and entry.kind == "new" and entry.unread
    assert {m.follow_id for m in entry.matches} == {lg.pk, turing.pk}
    assert trail_ids(user, follow_id=turing.pk) == ["2611.00001"]
    assert len(cards(user)[0].reasons) == 2


def test_two_people_of_one_name_are_one_variant_until_one_is_rejected(user):
    li = follow(user, "author", {"author": "Li Na"})
    harvest(
        record("2611.00001", authors=["Li Na"], categories=["cs.CL"]),
        record("2611.00002", authors=["Li Na"], categories=["q-bio.NC"]),
    )
    assert len(trail_ids(user)) == 2
    other = card_of(user, "2611.00002")
    author_variant_reject(user=user, follow_id=li.pk, paper_id=other.paper_id)
    assert trail_ids(user) == ["2611.00001"]


def test_unknown_category_is_an_error_naming_the_field_in_the_active_language(user):
    with translation.override("en"), pytest.raises(ValidationError) as error:
        follow(user, "category", {"code": "cs.XX"})
    assert error.value.message_dict == {"code": ["cs.XX is not a known arXiv category code or archive."]}
    with translation.override("zh-hans"), pytest.raises(ValidationError) as error:
        follow(user, "category", {"code": "cs.XX"})
    assert error.value.message_dict == {"code": ["cs.XX 不是已知的 arXiv 分类代码或学科大类。"]}
