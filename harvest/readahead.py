"""Read ahead: produce the next items of an iterator in a background thread
while the caller works on the current one.

Ingest is parse, then store. Parsing (lxml, `json.loads`) is CPU work, storing
mostly waits on the database server; psycopg releases the GIL while it waits
on its socket and lxml while it parses in C, so on a machine with two cores
parsing the next page in a thread overlaps with storing the current one.
Only the standard library is used (threading and queue).
"""

from __future__ import annotations

import gc
import os
import pickle
import queue
import signal
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

import billiard

T = TypeVar("T")


_POLL_SECONDS = 1.0
# How long a reader process told to stop may take before it is killed.
_STOP_SECONDS = 5.0

# How a source's pages are read ahead (SourceClient.pages_read_ahead).
READ_AHEAD_THREAD = "thread"
READ_AHEAD_PROCESS = "process"


class _End:
    """The producer's last message: the iterator is exhausted, or it raised."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error


def read_ahead(iterable: Iterable[T], *, depth: int = 1, name: str = "read-ahead") -> Iterator[T]:
    """Yield the items of `iterable` in order, while a background thread
    already produces up to `depth` of the following ones.

    While the caller works on item k, the thread may have produced items
    k+1 .. k+depth and then waits; memory is bounded by `depth` items, not by
    the length of the stream. An exception raised by `iterable` is raised
    here, at the place of the item it would have produced, after every
    earlier item has been yielded. When the caller stops early (`break`, an
    exception in the caller, `close()`, also one raised by a signal handler
    such as Celery's SoftTimeLimitExceeded), the thread is told to stop, the
    iterable is closed in that thread, and the thread is joined before
    control returns to the caller. Joining waits for the item being produced
    at that moment (for a source: one request, bounded by its timeout and
    retries), never longer.

    `iterable` runs in the background thread, so it must not touch the
    database: Django connections belong to the thread that opened them, so a
    query there would open a second connection outside the caller's
    transaction (and, in tests, outside the test's transaction) and leave it
    open. It must not change objects the caller uses either. Produce plain
    data (parsed records, counts, checkpoints as new dicts) and store it in
    the calling thread.

    The thread starts at the first `next()`; an iterator from this function
    that is never started costs nothing.
    """
    if depth < 1:
        raise ValueError("depth must be at least 1")
    iterator = iter(iterable)
    items: queue.SimpleQueue = queue.SimpleQueue()
    # One permit per item the thread may produce before the caller has taken
    # it: the thread takes a permit before producing, the caller gives one
    # back when it takes an item. The queue itself needs no bound.
    permits = threading.Semaphore(depth)
    stop = threading.Event()
    running = threading.Event()

    def produce() -> None:
        running.set()
        try:
            while True:
                permits.acquire()
                if stop.is_set():
                    return
                try:
                    item = next(iterator)
                except StopIteration:
                    items.put(_End())
                    return
                except BaseException as exc:  # handed to the caller, who raises it
                    items.put(_End(exc))
                    return
                items.put(item)
        finally:
            # Closed here: a generator can only be closed by the thread that runs it.
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name=name, daemon=True)
    try:
        # Inside the `try`: an exception from a signal handler while start()
        # waits for the thread must still stop and join it.
        thread.start()
        while True:
            item = items.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            permits.release()
            yield item
    finally:
        stop.set()
        # Wakes the thread if it waits for a permit; if it is producing, it
        # puts that item (the queue never blocks), sees `stop` and returns.
        permits.release()
        if thread.ident is not None:  # None: start() was interrupted before the thread ran
            running.wait()  # join() refuses a thread that has not finished starting
            thread.join()


def reading_ahead(iterable: Iterable[T], *, mode: str | None, name: str) -> Iterator[T]:
    """`iterable` read ahead as a source asks (SourceClient.pages_read_ahead):
    in a thread, in a process, or not at all (mode None). Items from a
    process are taken from the pipe and unpickled in a thread of this
    process, which works while the caller waits on the database."""
    if mode == READ_AHEAD_THREAD:
        return read_ahead(iterable, name=name)
    if mode == READ_AHEAD_PROCESS:
        return read_ahead(read_ahead_in_process(iterable, name=name), name=f"{name}-receiver")
    if mode is None:
        return iter(iterable)
    raise ValueError(f"unknown read-ahead mode {mode!r}")


def read_ahead_in_process(iterable: Iterable[T], *, depth: int = 1, name: str = "read-ahead") -> Iterator[T]:
    """`read_ahead` with the producer in a forked child process instead of a
    thread, for producers whose work holds the GIL (lxml's tree building and
    the record code around it, `json.loads`): there a thread only takes turns
    with the caller, a process runs on the other core. Items and the
    producer's exception cross a pipe pickled.

    The same rules hold: at most `depth` items wait in the pipe, the
    producer's exception is raised after the items before it, and an early
    stop ends the child before control returns. The child inherits the
    caller's memory at fork time and must not touch the database (it never
    closes the caller's connections: a forked child leaves through os._exit).
    It is started through billiard, Celery's multiprocessing, which lets a
    prefork worker's (daemonic) process have a child; the child ends by
    itself when its parent is gone (killed by a hard time limit, say).
    """
    if depth < 1:
        raise ValueError("depth must be at least 1")
    context = billiard.get_context("fork")
    items = context.Queue(maxsize=depth)
    child = context.Process(target=_produce_into, args=(iter(iterable), items, os.getpid()), name=name, daemon=True)
    try:
        child.start()
        while True:
            item = _next_from(child, items)
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
    finally:
        if child.is_alive():
            child.terminate()  # an early stop: the rest of the stream is not wanted
            child.join(_STOP_SECONDS)
            if child.is_alive():
                child.kill()
        child.join()
        items.close()
        items.join_thread()


def _next_from(child, items):
    """The next message from the child; an error if it died without its _End
    (killed, out of memory), rather than waiting forever."""
    while True:
        try:
            return items.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            if child.is_alive():
                continue
        try:  # it may have sent its last message just before it ended
            return items.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            raise RuntimeError(f"{child.name}: the reader process ended (exit code {child.exitcode})") from None


def _produce_into(iterator: Iterator, items, parent: int) -> None:
    """The child's loop: every item, then one _End (with the error, if any).
    Waits for room in the pipe only while its parent lives."""
    # A Celery prefork worker's handlers (SIGTERM raises SystemExit there,
    # SIGUSR1 a soft time limit) are inherited at fork: the child would catch
    # its own terminate() and wait for room in a pipe nobody reads. Here a
    # signal ends the child, as it should.
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1):
        signal.signal(number, signal.SIG_DFL)
    # Everything inherited at fork lives as long as the child: out of the
    # collector's sight, its full collections walk only what the child makes
    # (a tenth of the parse time at a page of records), and it leaves the
    # parent's pages unwritten.
    gc.freeze()
    parent_alive = True

    def put(message) -> bool:
        nonlocal parent_alive
        while True:
            try:
                items.put(message, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                if os.getppid() != parent:
                    parent_alive = False
                    return False

    try:
        for item in iterator:
            if not put(item):
                return
        put(_End())
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))  # noqa: S301 (bytes this process just made)
        except Exception:  # an error that cannot cross the pipe is described instead
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        put(_End(exc))
    finally:
        items.close()
        if parent_alive:
            items.join_thread()
        else:  # nobody reads the pipe any more: leave without flushing it
            items.cancel_join_thread()
