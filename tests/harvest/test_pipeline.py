"""Planning the next batch while the current one is written (harvest/pipeline.py)."""

from __future__ import annotations

import gc
import time
from datetime import UTC, datetime

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.db import connection

from harvest.models import Author, Authorship, Paper, Version
from harvest.pipeline import planned_ahead
from harvest.services import paper_upsert_many
from harvest.source_records import PaperRecord, VersionRecord
from harvest.sources.http import PermanentError

# The planner thread reads on its own connection: it sees what is committed.
pytestmark = pytest.mark.django_db(transaction=True)

V1 = datetime(2026, 11, 10, 9, 0, tzinfo=UTC)
V2 = datetime(2026, 11, 12, 9, 0, tzinfo=UTC)


def record(
    arxiv_id: str = "2611.00001", *, versions=(V1,), title: str = "A title", authors=("Ada Lovelace", "Alan Turing")
) -> PaperRecord:
    return PaperRecord(
        arxiv_id=arxiv_id,
        title=title,
        abstract="An abstract.",
        authors=list(authors),
        categories=["cs.LG"],
        versions=[VersionRecord(number=i + 1, submitted=when, size="10kb") for i, when in enumerate(versions)],
    )


def itself(batch: list[PaperRecord]) -> list[PaperRecord]:
    return batch


def plans_are_checked() -> bool:
    """Only the PostgreSQL store stamps rows; elsewhere every batch is planned in its transaction."""
    return connection.vendor == "postgresql"


def test_batches_come_in_order_each_with_the_plan_of_its_records():
    batches = [[record("2611.00001")], [record("2611.00002"), record("2611.00003")], []]
    seen = list(planned_ahead(batches, records_of=itself))
    assert [batch for batch, _ in seen] == batches
    plans = [plan for _, plan in seen]
    if plans_are_checked():
        assert [[p.arxiv_id for p in plan.new_papers] for plan in plans[:2]] == [
            ["2611.00001"],
            ["2611.00002", "2611.00003"],
        ]
        assert plans[2] is None  # nothing to plan
    else:
        assert plans == [None, None, None]


def test_an_error_from_the_source_comes_after_every_batch_before_it():
    def source():
        yield [record("2611.00001")]
        yield [record("2611.00002")]
        raise PermanentError("the source broke")

    stored = []
    with pytest.raises(PermanentError, match="the source broke"):
        for batch, plan in planned_ahead(source(), records_of=itself):
            paper_upsert_many(records=batch, plan=plan)
            stored.append(batch[0].arxiv_id)
    assert stored == ["2611.00001", "2611.00002"]
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == stored


def test_a_time_limit_while_waiting_for_the_next_batch_stops_at_once():
    def source():
        yield [record("2611.00001")]
        raise SoftTimeLimitExceeded()

    stored = []
    with pytest.raises(SoftTimeLimitExceeded):
        for batch, _ in planned_ahead(source(), records_of=itself):
            stored.append(batch)
    assert stored == []  # the run resumes from its last checkpoint


def test_stopping_early_closes_the_source():
    closed = []

    def source():
        try:
            for number in range(1, 4):
                yield [record(f"2611.0000{number}")]
        finally:
            closed.append(True)

    planned = planned_ahead(source(), records_of=itself)
    next(planned)
    planned.close()
    assert closed == [True]


def test_a_paper_in_two_consecutive_batches_ends_as_if_they_were_stored_one_by_one():
    # The second batch is read while the first is written: its plan either
    # saw the paper committed, or knows nothing of v1 and must not be written
    # as it stands.
    batches = [[record(versions=(V1,))], [record(versions=(V1, V2), title="Second")]]
    results, plans = [], []
    for batch, plan in planned_ahead(batches, records_of=itself):
        results.append(paper_upsert_many(records=batch, plan=plan))
        plans.append(plan)
    paper = Paper.objects.get()
    assert (paper.title, paper.version_count, paper.latest_version, paper.updated) == ("Second", 2, 2, V2)
    assert list(paper.versions.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert [(r.new_papers, r.new_versions) for r in results] == [(1, 0), (0, 1)]
    if plans_are_checked():
        assert plans[0].new_papers[0].pk == paper.pk  # written as planned
        # Written as planned exactly when the plan saw the first batch's paper.
        assert (plans[1].result is results[1]) == (plans[1].new_papers == [])


def test_a_plan_made_stale_by_another_writer_is_made_again():
    [(batch, plan)] = list(planned_ahead([[record(versions=(V1,))]], records_of=itself))
    # Another source stores the paper between the plan and its transaction.
    paper_upsert_many(records=[record(versions=(V1, V2), title="From another source")])
    result = paper_upsert_many(records=batch, plan=plan)
    paper = Paper.objects.get()
    # Planned again: no new paper, and only v1's text filled in (what the record says of v1).
    assert (result.new_papers, result.new_versions, result.updated) == (0, 0, 1)
    assert (paper.title, paper.version_count) == ("From another source", 2)
    assert paper.versions.get(number=1).title == "A title"
    assert Version.objects.filter(paper=paper).count() == 2


def test_a_plan_of_a_known_paper_that_nothing_touched_is_written_as_planned():
    paper_upsert_many(records=[record(versions=(V1,))])
    [(batch, plan)] = list(planned_ahead([[record(versions=(V1, V2), title="Revised")]], records_of=itself))
    result = paper_upsert_many(records=batch, plan=plan)
    paper = Paper.objects.get()
    assert (result.new_versions, paper.title, paper.version_count) == (1, "Revised", 2)
    if plans_are_checked():
        assert plan.result is result


def test_a_plan_that_meets_a_version_written_since_without_its_paper_is_made_again():
    paper_upsert_many(records=[record(versions=(V1,))])
    [(batch, plan)] = list(planned_ahead([[record(versions=(V1, V2), title="Revised")]], records_of=itself))
    # Another writer adds v2 without touching the paper's row (its stamp).
    Version.objects.create(paper=Paper.objects.get(), number=2, submitted=V2, size="11kb")
    result = paper_upsert_many(records=batch, plan=plan)
    paper = Paper.objects.get()
    assert result.new_versions == 0  # v2 was there when the batch was planned again
    assert (paper.title, paper.version_count, paper.latest_version) == ("Revised", 2, 2)
    assert Version.objects.filter(paper=paper).count() == 2


def test_the_objects_alive_at_the_start_are_out_of_the_collectors_sight_until_the_end():
    before = gc.get_freeze_count()
    frozen_while_running = []

    def source():
        for batch in ([record("2611.00001")], [record("2611.00002")]):
            frozen_while_running.append(gc.get_freeze_count())
            yield batch

    for _ in planned_ahead(source(), records_of=itself):
        frozen_while_running.append(gc.get_freeze_count())
    assert min(frozen_while_running) > before  # Django, the modules, this test's objects
    assert gc.get_freeze_count() == before


def test_stopping_early_hands_the_frozen_objects_back():
    before = gc.get_freeze_count()
    planned = planned_ahead([[record("2611.00001")], [record("2611.00002")]], records_of=itself)
    next(planned)
    assert gc.get_freeze_count() > before
    planned.close()
    assert gc.get_freeze_count() == before


def backends_of_this_database() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


def test_a_plan_carries_the_ids_of_the_authors_the_library_holds():
    paper_upsert_many(records=[record("2611.00001", authors=["Ada Lovelace"])])
    ada = Author.objects.get(name="Ada Lovelace").pk
    [(batch, plan)] = list(
        planned_ahead([[record("2611.00002", authors=["Ada Lovelace", "Grace Hopper"])]], records_of=itself)
    )
    if plans_are_checked():
        assert plan.author_ids == {"Ada Lovelace": ada}  # Grace Hopper is not there yet
    paper_upsert_many(records=batch, plan=plan)
    links = Authorship.objects.filter(paper__arxiv_id="2611.00002").order_by("position")
    assert [(link.author.name, link.author_id == ada) for link in links] == [
        ("Ada Lovelace", True),
        ("Grace Hopper", False),
    ]
    assert Author.objects.count() == 2


def test_an_author_added_after_the_plan_was_made_is_found_when_it_is_written():
    [(batch, plan)] = list(
        planned_ahead([[record("2611.00002", authors=["Grace Hopper", "Alan Turing"])]], records_of=itself)
    )
    # Another source stores Grace Hopper (in another paper) after the plan.
    paper_upsert_many(records=[record("2611.00001", authors=["Grace Hopper"])])
    result = paper_upsert_many(records=batch, plan=plan)
    if plans_are_checked():
        assert plan.author_ids == {} and plan.result is result  # the paper's plan still held
    grace = Author.objects.get(name="Grace Hopper")
    assert Authorship.objects.filter(author=grace).count() == 2
    assert sorted(Author.objects.values_list("name", flat=True)) == ["Alan Turing", "Grace Hopper"]


def test_authors_new_in_one_batch_are_stored_once_when_the_next_names_them_too():
    # The second batch is planned while the first is written: whether it finds
    # Grace Hopper then or not, she is one author afterwards.
    batches = [
        [record(f"2611.{n:05d}", authors=["Grace Hopper", f"Author {n}"]) for n in range(1, 51)],
        [record(f"2611.{n:05d}", authors=["Grace Hopper", f"Author {n}"]) for n in range(51, 101)],
    ]
    for batch, plan in planned_ahead(batches, records_of=itself):
        paper_upsert_many(records=batch, plan=plan)
    grace = Author.objects.get(name="Grace Hopper")
    assert Authorship.objects.filter(author=grace).count() == 100
    assert Author.objects.count() == 101


def backends_once_settled(expected: int) -> int:
    """A backend leaves pg_stat_activity as it exits, just after its client
    has closed the connection: read again for up to five seconds."""
    deadline = time.monotonic() + 5
    while (count := backends_of_this_database()) != expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return count


@pytest.mark.skipif(connection.vendor != "postgresql", reason="counts PostgreSQL backends")
def test_the_planner_threads_connection_is_closed_at_the_end():
    before = backends_of_this_database()
    for batch, plan in planned_ahead([[record("2611.00001")], [record("2611.00002")]], records_of=itself):
        paper_upsert_many(records=batch, plan=plan)
    assert backends_once_settled(before) == before


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ends a PostgreSQL backend")
def test_a_batch_whose_plan_cannot_be_made_is_planned_in_its_transaction(caplog):
    batches = [[record(f"2611.0000{n}")] for n in range(1, 5)]
    plans = []
    for batch, plan in planned_ahead(batches, records_of=itself):
        paper_upsert_many(records=batch, plan=plan)
        plans.append(plan)
        if len(plans) == 1:
            # The planner's connection is cut (a server restart, a proxy
            # timeout): the plan it is making, or the next, fails.
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
    assert sorted(Paper.objects.values_list("arxiv_id", flat=True)) == [f"2611.0000{n}" for n in range(1, 5)]
    assert plans[0] is not None and plans[3] is not None  # the plan after the failed one reconnected
    assert [plan is None for plan in plans[1:3]].count(True) == 1
    assert "planning a batch ahead failed" in caplog.text
