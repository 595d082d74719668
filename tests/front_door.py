"""`make run` as a newcomer runs it: a fresh copy of the working tree, no
environment of ours, real ports, stopped with Ctrl-C (SIGINT to its process
group, as a terminal sends it).

A pytest plugin as well: when the session holds a test marked `front_door`,
the copy's `make run` starts as soon as collection ends, and the marked test,
ordered last, checks it once it has lived minutes, past its first embedding.
`make test` gives that test a session of its own beside the rest of the suite
(bin/run-tests), so that its minutes of waiting overlap the suite's. Its
processes are idle once the first embedding is done, so this costs the suite
little time."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MARKER = "front_door"
# Variables of the test session that a newcomer's shell does not have.
_SESSION_VARIABLES = re.compile(
    r"^(DATABASE_URL|REDIS_URL|DJANGO_.*|PAPERTRAIL_.*|ARXIV_.*|EMAIL_.*|ANTHROPIC_.*|CELERY_.*)$"
)
TASK_DONE = re.compile(r"^\[([0-9-]+ [0-9:,]+): INFO/.*Task [\w.]+\[[\w-]+\] succeeded", re.MULTILINE)


def fresh_copy() -> Path:
    """The working tree's files as a clone would have them (tracked, and new
    files not ignored), beside the project's virtualenv."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    copy = Path(tempfile.mkdtemp(prefix="papertrail-make-run-"))
    for name in filter(None, (item.decode() for item in listed)):
        source = PROJECT_ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    # The suite's own virtualenv: `make run` still checks it against requirements.txt.
    (copy / ".venv").symlink_to(PROJECT_ROOT / ".venv")
    return copy


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class MakeRun:
    """One `make run` in `copy`, its output kept in a file."""

    copy: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    started: float = 0.0
    runs: int = 0

    def start(self) -> MakeRun:
        env = {name: value for name, value in os.environ.items() if not _SESSION_VARIABLES.match(name)}
        env.update(HOST="127.0.0.1", PORT=str(self.port))
        self.runs += 1
        with open(self.output_path, "ab") as output:
            self.process = subprocess.Popen(
                ["make", "run"],
                cwd=self.copy,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # As a terminal's foreground job has it, even when this session was started with it ignored.
                preexec_fn=_interruptible,
            )
        self.started = time.monotonic()
        return self

    @property
    def output_path(self) -> Path:
        return self.copy / "make-run.out"

    def output(self) -> str:
        return self.output_path.read_text(errors="replace")

    def log(self, name: str) -> str:
        path = self.copy / "var" / "log" / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def page_status(self, path: str = "/") -> int | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=30) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            return None

    def wait_for(self, condition, *, timeout: float, what: str) -> None:
        """Polls `condition` while `make run` is up; fails naming `what`, with its output."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            if not self.running():
                pytest.fail(f"make run stopped while waiting for {what}:\n{self.output()[-3000:]}")
            time.sleep(1)
        pytest.fail(f"no {what} within {timeout:.0f} s:\n{self.output()[-3000:]}")

    def tasks_done(self) -> int:
        return len(TASK_DONE.findall(self.log("worker")))

    def interrupt(self) -> float:
        """Ctrl-C: SIGINT to the process group; the seconds until `make` ended."""
        assert self.process is not None
        began = time.monotonic()
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
        return time.monotonic() - began

    def leftovers(self) -> list[int]:
        """Processes still running in the copy (by their working directory)."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    if Path(os.readlink(entry / "cwd")).is_relative_to(self.copy):
                        found.append(int(entry.name))
                except OSError:
                    pass
        return found

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for pid in self.leftovers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


_session_run: MakeRun | None = None


def session_make_run() -> MakeRun:
    """The `make run` started for this session (started now if it was not)."""
    global _session_run
    if _session_run is None:
        _session_run = MakeRun(fresh_copy()).start()
    return _session_run


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]):
    # Last, after every other plugin's ordering (pytest-django's, the
    # fixtures'), so that `make run` has lived through the rest of the session.
    result = yield
    items.sort(key=lambda item: item.get_closest_marker(MARKER) is not None)
    return result


def pytest_collection_finish(session: pytest.Session) -> None:
    if any(item.get_closest_marker(MARKER) for item in session.items):
        session_make_run()


def pytest_sessionfinish(session: pytest.Session) -> None:
    global _session_run
    if _session_run is not None:
        _session_run.kill()
        shutil.rmtree(_session_run.copy, ignore_errors=True)
        _session_run = None
