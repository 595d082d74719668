"""The harvest as real processes: `manage.py harvest` killed between pages and
resumed, and a real Celery worker on the Redis broker running the task."""

from __future__ import annotations

import os
import signal
import subprocess
import threading

import pytest
from celery.result import AsyncResult
from django.db import connection

from harvest.models import HarvestRun, Paper, Source
from harvest.runs import harvest_source
from harvest.tasks import index_task_id
from tests.celery_worker import running_worker
from tests.harvest.oai_pages import RECORDED_IDS
from tests.harvest.test_oai_harvest import library, oai_client, serve, three_pages
from tests.replay_server import Reply

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_a_harvest_killed_between_pages_resumes_and_stores_what_an_uninterrupted_run_stores(
    replay_server, subprocess_env, manage_py
):
    # The reference: an uninterrupted run over the same three pages.
    serve(replay_server, *three_pages())
    harvest_source(slug="arxiv", client=oai_client(replay_server))
    uninterrupted = library()
    Paper.objects.all().delete()
    Source.objects.all().delete()

    # Page 3 is held back until the harvester has been killed while waiting for
    # it: a page is stored once the next one is read and planned (harvest/
    # pipeline.py), so page 1 is stored and page 2 is not.
    asked_for_page_3, killed = threading.Event(), threading.Event()

    def hold() -> None:
        asked_for_page_3.set()
        killed.wait(timeout=60)

    pages = three_pages()
    replay_server.queue("/oai", Reply(body=pages[0]), Reply(body=pages[1]), Reply(body=pages[2], before_send=hold))
    env = {**subprocess_env, "ARXIV_OAI_URL": f"{replay_server.url}/oai", "ARXIV_OAI_SETS": "cs"}
    process = subprocess.Popen(
        [*manage_py, "harvest", "arxiv"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert asked_for_page_3.wait(timeout=60), process.stderr.read1().decode() if process.poll() else "no request"
        # Kill once page 1 is reported stored, i.e. between pages.
        for line in process.stderr:
            if line.startswith(b"page 1:"):
                break
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        killed.set()
        if process.poll() is None:
            process.kill()

    interrupted = HarvestRun.objects.get()
    assert interrupted.status == HarvestRun.Status.RUNNING and interrupted.pages == 1
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == set(RECORDED_IDS[:2])

    replay_server.queue("/oai", Reply(body=pages[1]), Reply(body=pages[2]))
    resumed = harvest_source(slug="arxiv", client=oai_client(replay_server))

    assert resumed.pk == interrupted.pk
    assert (resumed.status, resumed.pages, resumed.new_papers) == (HarvestRun.Status.OK, 3, 6)
    assert replay_server.requests_to("/oai")[-2].param("resumptionToken") == "726959|3"
    assert library() == uninterrupted


def test_manage_py_harvest_shows_progress_per_page(replay_server, subprocess_env, manage_py):
    serve(replay_server, *three_pages())
    env = {**subprocess_env, "ARXIV_OAI_URL": f"{replay_server.url}/oai"}

    finished = subprocess.run([*manage_py, "harvest", "arxiv"], env=env, capture_output=True, text=True, timeout=120)

    assert finished.returncode == 0, finished.stderr
    progress = [line for line in finished.stderr.splitlines() if line.startswith("page ")]
    assert len(progress) == 3 and progress[-1].endswith("6 seen, 6 new papers, 0 new versions")
    assert "ok: 6 seen, 6 new papers" in finished.stdout


def test_manage_py_harvest_rejects_a_bad_date(subprocess_env, manage_py):
    finished = subprocess.run(
        [*manage_py, "harvest", "arxiv", "--from", "2026-13-01"],
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 1
    assert "'2026-13-01' is not a date in the form YYYY-MM-DD" in finished.stderr


@pytest.fixture
def celery_worker_process(subprocess_env, replay_server):
    env = {**subprocess_env, "ARXIV_OAI_URL": f"{replay_server.url}/oai"}
    with running_worker(env, queues="harvest", hostname="test-harvest") as process:
        yield process


def test_a_real_worker_runs_the_scheduled_harvest_task(replay_server, celery_worker_process):
    from harvest.tasks import run_source

    serve(replay_server, *three_pages())

    result = run_source.apply_async(args=["arxiv"], queue="harvest")
    summary = result.get(timeout=120)

    run = HarvestRun.objects.get()
    assert summary == f"arxiv run {run.pk}: ok, 6 seen, 6 new papers, 0 new versions, 0 skipped"
    assert Paper.objects.count() == 6
    assert Source.objects.get(slug="arxiv").lease_owner == ""
    # The run queued the full-text indexing of what it stored; the worker ran it.
    indexing = AsyncResult(index_task_id(run))
    assert indexing.get(timeout=120).startswith("6 papers indexed in ")
    assert not Paper.objects.filter(search_pending=True).exists()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM harvest_paper WHERE search_vector IS NOT NULL")
            assert cursor.fetchone()[0] == 6


def test_two_runs_of_one_source_never_overlap(replay_server, celery_worker_process):
    """While the worker's run waits for page 2, a second run is skipped."""
    from harvest.tasks import run_source

    asked, release = threading.Event(), threading.Event()

    def hold() -> None:
        asked.set()
        release.wait(timeout=60)

    pages = three_pages()
    replay_server.queue("/oai", Reply(body=pages[0]), Reply(body=pages[1], before_send=hold), Reply(body=pages[2]))
    first = run_source.apply_async(args=["arxiv"], queue="harvest")
    try:
        assert asked.wait(timeout=120)
        second = harvest_source(slug="arxiv", client=oai_client(replay_server))
    finally:
        release.set()

    assert second is None
    assert first.get(timeout=120).endswith("ok, 6 seen, 6 new papers, 0 new versions, 0 skipped")
    assert HarvestRun.objects.count() == 1
    assert set(Paper.objects.values_list("arxiv_id", flat=True)) == set(RECORDED_IDS)
