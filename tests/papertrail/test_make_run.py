"""`make run` on a fresh copy stays up until Ctrl-C: the page answers, the
worker still takes tasks minutes later and past the first embedding, Ctrl-C
stops everything within ten seconds, and a second `make run` in the same copy
starts and stays up. A service that dies stops the rest, named, with its log.

The first run starts when collection ends (tests/front_door.py); `make test`
runs this test in a session of its own beside the rest of the suite."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.front_door import MARKER, session_make_run

pytestmark = [pytest.mark.integration, getattr(pytest.mark, MARKER)]

# The old `make run` stopped by itself 70 to 100 seconds after its first page.
MIN_LIFETIME_SECONDS = 180
STOP_SECONDS = 10


def test_make_run_stays_up_until_ctrl_c_and_starts_again():
    run = session_make_run()
    try:
        run.wait_for(lambda: run.page_status() == 200, timeout=300, what="first page")
        assert "PaperTrail is running at" in run.output()
        run.wait_for(
            lambda: "Embeddings ready" in run.output() or "The first embedding stopped" in run.output(),
            timeout=1200,
            what="end of the first embedding",
        )
        assert "Embeddings ready" in run.output(), run.output()[-3000:]
        embedded = run.log("embed")
        assert "papers embedded" in embedded and " 0 papers embedded" not in embedded

        # Minutes after the start and after the first embedding, every
        # service is up and the worker still takes beat's tasks.
        run.wait_for(
            lambda: time.monotonic() - run.started >= MIN_LIFETIME_SECONDS,
            timeout=MIN_LIFETIME_SECONDS,
            what=f"{MIN_LIFETIME_SECONDS} s of life",
        )
        done = run.tasks_done()
        run.wait_for(lambda: run.tasks_done() > done, timeout=150, what="task done by the worker")
        assert run.page_status() == 200
        assert run.page_status("/papers/?q=language+models") == 200

        assert run.interrupt() <= STOP_SECONDS
        assert run.leftovers() == []
        assert "Stopping PaperTrail" in run.output()

        # Again, in the same copy: the library is there, nothing to load.
        run.start()
        run.wait_for(lambda: run.output().count("PaperTrail is running at") == 2, timeout=180, what="second start")
        assert "offline bundle not loaded" in run.output()
        done = run.tasks_done()
        run.wait_for(lambda: run.tasks_done() > done, timeout=150, what="task done by the second worker")
        assert run.running()
        assert run.page_status() == 200

        # A service that dies is named with its log, and the others stop.
        beat = next(pid for pid in run.leftovers() if b"\0beat\0" in Path(f"/proc/{pid}/cmdline").read_bytes())
        os.kill(beat, signal.SIGKILL)
        run.process.wait(timeout=30)
        assert run.process.returncode != 0
        assert "the beat stopped (exit 137); stopping the others. Last lines of" in run.output()
        assert "beat: Starting" in run.output().split("the beat stopped")[-1]
        deadline = time.monotonic() + STOP_SECONDS
        while run.leftovers() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert run.leftovers() == []
    finally:
        run.kill()
