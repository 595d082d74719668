"""Read ahead: produce the next items of an iterator in a background thread
while the caller works on the current one.

Ingest is parse, then store. Parsing (lxml, `json.loads`) is CPU work, storing
mostly waits on the database server; psycopg releases the GIL while it waits
on its socket and lxml while it parses in C, so on a machine with two cores
parsing the next page in a thread overlaps with storing the current one.
Only the standard library is used (threading and queue).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


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
