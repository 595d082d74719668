"""The bulk upsert every source goes through."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime

import pytest
from django.db import connection, transaction

from harvest.models import Author, Authorship, Paper, PaperCategory, Version
from harvest.services import paper_upsert_many
from harvest.source_records import MalformedRecord, PaperRecord, VersionRecord, split_arxiv_id, split_authors
from harvest.stores.rows import PAPER_FIELDS, PaperRow

pytestmark = pytest.mark.django_db

V1 = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
V2 = datetime(2026, 11, 12, 9, 0, tzinfo=UTC)


def record(arxiv_id: str = "2611.00001", *, categories=("cs.LG", "math.OC"), versions=(V1,), title="A title"):
    return PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract="An abstract.",
        authors=["Ada Lovelace", "Alan Turing"],
        categories=list(categories),
        versions=[VersionRecord(number=i + 1, submitted=when, size=f"{10 + i}kb") for i, when in enumerate(versions)],
    )


@pytest.mark.parametrize(
    "categories, expected",
    [(("cs.LG", "math.OC"), True), (("math.OC", "stat.ML"), True), (("cs.DB",), False), (("hep-th",), False)],
)
def test_ai_related_comes_from_primary_or_cross_listed_categories(categories, expected):
    paper_upsert_many(records=[record(categories=categories)])
    assert Paper.objects.get().ai_related is expected


def test_the_ai_category_set_is_configurable(settings):
    settings.PAPERTRAIL_AI_CATEGORIES = frozenset({"cs.DB"})
    paper_upsert_many(records=[record(categories=("cs.DB",)), record("2611.00002", categories=("cs.LG",))])
    assert dict(Paper.objects.values_list("arxiv_id", "ai_related")) == {"2611.00001": True, "2611.00002": False}


def test_a_paper_listed_twice_in_one_batch_is_stored_once_with_all_versions():
    result = paper_upsert_many(records=[record(versions=(V1,)), record(versions=(V1, V2), title="Second")])
    paper = Paper.objects.get()
    assert result.new_papers == 1
    assert (paper.title, paper.version_count, paper.updated) == ("Second", 2, V2)


def test_an_older_record_never_rolls_a_paper_back():
    paper_upsert_many(records=[record(versions=(V1, V2), title="Latest title")])
    result = paper_upsert_many(records=[record(versions=(V1,), title="Old title")])
    paper = Paper.objects.get()
    assert (paper.title, paper.latest_version, paper.updated) == ("Latest title", 2, V2)
    assert Version.objects.count() == 2
    # What the older record says about v1 is kept on v1, once.
    assert result.updated == 1 and paper.versions.get(number=1).title == "Old title"
    assert paper_upsert_many(records=[record(versions=(V1,), title="Old title")]).unchanged == 1


def test_changed_categories_rewrite_the_indexed_rows():
    paper_upsert_many(records=[record(categories=("cs.LG", "math.OC"))])
    result = paper_upsert_many(records=[record(categories=("cs.CL",))])
    assert result.updated == 1
    assert list(PaperCategory.objects.values_list("category", "is_primary")) == [("cs.CL", True)]
    assert Paper.objects.get().categories == ["cs.CL"]


def test_created_version_ids_name_every_new_version():
    first = paper_upsert_many(records=[record(versions=(V1,))])
    second = paper_upsert_many(records=[record(versions=(V1, V2))])
    assert [Version.objects.get(pk=pk).number for pk in first.created_version_ids] == [1]
    assert [Version.objects.get(pk=pk).number for pk in second.created_version_ids] == [2]


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("2611.13545", ("2611.13545", None)),
        ("2611.13545v3", ("2611.13545", 3)),
        ("oai:arXiv.org:0704.0001", ("0704.0001", None)),
        ("hep-th/9901001v2", ("hep-th/9901001", 2)),
        ("math.AG/0601001", ("math.AG/0601001", None)),
    ],
)
def test_arxiv_ids_are_split_from_their_version(raw, expected):
    assert split_arxiv_id(raw) == expected


@pytest.mark.parametrize("raw", ["abc", "2611.135", "hep-th/99", "../../etc/passwd"])
def test_malformed_ids_are_rejected(raw):
    with pytest.raises(MalformedRecord):
        split_arxiv_id(raw)


def test_author_strings_are_split_into_names_without_affiliations():
    assert split_authors("D.V. Shetty, S.J. Yennello, and G.A. Souliotis") == [
        "D.V. Shetty",
        "S.J. Yennello",
        "G.A. Souliotis",
    ]
    assert split_authors("A. Author (MIT, USA) and B. Author (ETH)") == ["A. Author", "B. Author"]


def test_author_names_are_shared_across_papers_whatever_characters_they_hold():
    """The PostgreSQL store looks names up as one unit-separated string and
    falls back to a text[] when a name holds the separator itself."""
    odd = "Ada\x1fLovelace"
    first, second = record("2611.00001"), record("2611.00002")
    first.authors, second.authors = [odd, "Alan Turing"], ["Alan Turing", odd, "Grace Hopper"]
    paper_upsert_many(records=[first])
    paper_upsert_many(records=[second])

    assert sorted(Author.objects.values_list("name", flat=True)) == sorted([odd, "Alan Turing", "Grace Hopper"])
    by_paper = {
        arxiv_id: [a.author.name for a in Authorship.objects.filter(paper__arxiv_id=arxiv_id).order_by("position")]
        for arxiv_id in ("2611.00001", "2611.00002")
    }
    assert by_paper == {"2611.00001": [odd, "Alan Turing"], "2611.00002": ["Alan Turing", odd, "Grace Hopper"]}


def test_a_paper_row_sets_and_reads_its_fields_in_the_stores_column_order():
    row = PaperRow(1, "2611.00001", V1, *PAPER_FIELDS)

    assert row.values() == PAPER_FIELDS
    assert all(getattr(row, name) == name for name in PAPER_FIELDS)


def test_records_survive_the_pipe_from_the_snapshot_reader_process():
    original = record(versions=(V1, V2))
    original.published, original.comments = V1, "12 pages"

    assert pickle.loads(pickle.dumps(original)) == original  # noqa: S301 (its own bytes)


def test_an_overlong_author_name_is_linked_truncated_and_does_not_stop_its_batch():
    # 512 characters of three bytes each, twice in the author-name index, would
    # not fit in an index entry (2,704 bytes); the batch must still be stored.
    long_name = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(512))
    overlong = record()
    overlong.authors = [long_name, "Alan Turing"]
    paper_upsert_many(records=[overlong, record("2611.00002")])
    assert Paper.objects.count() == 2
    linked = list(Authorship.objects.filter(paper__arxiv_id="2611.00001").order_by("position"))
    assert [a.author.name for a in linked] == [long_name[:300], "Alan Turing"]
    assert Paper.objects.get(arxiv_id="2611.00001").authors[0] == long_name  # the paper keeps what arXiv said


def test_deleting_a_paper_takes_its_versions_and_links_with_it():
    # Versions, author and category links carry no database foreign key
    # (harvest/models.py): the ORM's cascade is what removes them.
    paper_upsert_many(records=[record(versions=(V1, V2)), record("2611.00002")])
    Paper.objects.get(arxiv_id="2611.00001").delete()
    kept = Paper.objects.get(arxiv_id="2611.00002")
    assert set(Version.objects.values_list("paper_id", flat=True)) == {kept.pk}
    assert set(Authorship.objects.values_list("paper_id", flat=True)) == {kept.pk}
    assert set(PaperCategory.objects.values_list("paper_id", flat=True)) == {kept.pk}
    assert Author.objects.count() == 2  # authors stay: they are only ever added


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('synchronous_commit')")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL setting")
def test_a_write_that_may_be_lost_commits_without_waiting_for_the_disk_and_only_its_transaction():
    with transaction.atomic():
        paper_upsert_many(records=[record()], durable=False)
        assert synchronous_commit() == "off"
    assert synchronous_commit() == "on"
    with transaction.atomic():
        paper_upsert_many(records=[record("2611.00002")])
        assert synchronous_commit() == "on"  # durable unless asked otherwise
    assert Paper.objects.count() == 2
