"""harvest/readahead.py: items in order, a bounded lead, errors where they
happened, and no thread left behind however the caller stops.

Synchronisation is by events only; every wait has a timeout so that a broken
implementation fails the test instead of hanging it."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import closing

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from harvest.readahead import (
    READ_AHEAD_PROCESS,
    READ_AHEAD_THREAD,
    read_ahead,
    read_ahead_in_process,
    reading_ahead,
)
from harvest.sources.http import PermanentError, TransientError
from harvest.sources.oai import OaiError

WAIT = 10  # seconds; only reached when something is broken


def threads_named(name: str) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == name]


class Recorder:
    """A producer that records which items it started, in which thread, and
    how far it ran ahead of what the consumer had finished."""

    def __init__(self, count: int | None = None) -> None:
        self.count = count
        self.started: list[int] = []
        self.threads: set[str] = set()
        self.finished = 0  # items the consumer is done with; set by the consumer
        self.lead = 0
        self.reached: dict[int, threading.Event] = {}
        self.closed = threading.Event()

    def reached_item(self, number: int) -> threading.Event:
        return self.reached.setdefault(number, threading.Event())

    def __iter__(self) -> Iterator[int]:
        try:
            number = 0
            while self.count is None or number < self.count:
                self.started.append(number)
                self.threads.add(threading.current_thread().name)
                self.lead = max(self.lead, number - self.finished)
                self.reached_item(number).set()
                yield number
                number += 1
        finally:
            self.closed.set()


def test_items_come_in_order_from_a_background_thread():
    producer = Recorder(count=200)

    assert list(read_ahead(producer, depth=3, name="ra-order")) == list(range(200))
    assert producer.threads == {"ra-order"}
    assert not threads_named("ra-order")


def test_an_empty_iterable_yields_nothing_and_leaves_no_thread():
    assert list(read_ahead([], name="ra-empty")) == []
    assert not threads_named("ra-empty")


@pytest.mark.parametrize("depth", [1, 2, 4])
def test_while_the_consumer_holds_an_item_at_most_depth_items_are_produced_ahead(depth: int):
    producer = Recorder()

    with closing(read_ahead(producer, depth=depth, name="ra-depth")) as items:
        assert next(items) == 0
        # The consumer is busy with item 0: the producer runs ahead up to its bound...
        assert producer.reached_item(depth).wait(WAIT)
        # ...and no further. Not synchronisation: a window in which a producer
        # that ignored its bound would start the next item; a correct one passes
        # however the threads are scheduled.
        assert not producer.reached_item(depth + 1).wait(0.05)
    # Closing joined it before it could start another item.
    assert producer.started == list(range(depth + 1))
    assert producer.closed.is_set()
    assert not threads_named("ra-depth")


@pytest.mark.parametrize("depth", [1, 3])
def test_the_lead_never_exceeds_depth_over_a_whole_stream(depth: int):
    producer = Recorder(count=300)
    received = []

    for item in read_ahead(producer, depth=depth):
        received.append(item)
        # The consumer is slower than the producer: it lets the producer run to
        # its bound before it finishes each item.
        assert producer.reached_item(min(item + depth, 299)).wait(WAIT)
        producer.finished += 1

    assert received == list(range(300))
    assert producer.lead == depth


def test_a_producer_error_is_raised_after_every_earlier_item():
    def failing() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("page 3 is unparsable")

    received = []
    with pytest.raises(ValueError, match="page 3 is unparsable"):
        for item in read_ahead(failing(), depth=2, name="ra-error"):
            received.append(item)

    assert received == [1, 2]
    assert not threads_named("ra-error")


def test_breaking_out_early_stops_closes_and_joins_the_producer():
    producer = Recorder()

    for item in read_ahead(producer, name="ra-break"):
        if item == 5:
            break

    assert producer.closed.is_set()
    assert not threads_named("ra-break")
    assert producer.started[-1] <= 6


def test_an_error_in_the_consumer_stops_and_joins_the_producer():
    producer = Recorder()

    with (
        pytest.raises(RuntimeError, match="store failed"),
        closing(read_ahead(producer, name="ra-consumer-error")) as items,
    ):
        for item in items:
            if item == 2:
                raise RuntimeError("store failed")

    assert producer.closed.is_set()
    assert not threads_named("ra-consumer-error")


def test_closing_while_the_producer_is_busy_waits_for_that_item_only():
    asked_for_item_1, release = threading.Event(), threading.Event()
    produced = []

    def slow() -> Iterator[int]:
        yield 0
        asked_for_item_1.set()
        assert release.wait(WAIT)
        produced.append(1)
        yield 1
        produced.append(2)  # never reached: the consumer has gone
        yield 2

    items = read_ahead(slow(), name="ra-busy")
    assert next(items) == 0
    assert asked_for_item_1.wait(WAIT)
    release.set()
    items.close()

    assert produced == [1]
    assert not threads_named("ra-busy")


def test_a_signal_raising_in_the_consumer_while_it_waits_stops_the_producer():
    # Celery raises SoftTimeLimitExceeded from a signal handler in the main
    # thread, typically while it waits for the next page.
    asked_for_item_1, release = threading.Event(), threading.Event()
    main = threading.main_thread().ident

    def on_signal(signum, frame) -> None:
        release.set()
        raise SoftTimeLimitExceeded()

    def producer() -> Iterator[int]:
        yield 0
        asked_for_item_1.set()
        signal.pthread_kill(main, signal.SIGUSR1)
        assert release.wait(WAIT)
        yield 1

    previous = signal.signal(signal.SIGUSR1, on_signal)
    try:
        with pytest.raises(SoftTimeLimitExceeded), closing(read_ahead(producer(), name="ra-signal")) as items:
            for _ in items:
                pass
    finally:
        signal.signal(signal.SIGUSR1, previous)

    assert asked_for_item_1.is_set()
    assert not threads_named("ra-signal")


def test_depth_must_be_positive():
    with pytest.raises(ValueError, match="depth"):
        next(read_ahead([1], depth=0))


# --- read_ahead_in_process: the producer in a forked child -----------------


def numbers_then_error(count: int) -> Iterator[int]:
    yield from range(count)
    raise ValueError(f"after {count}")


def test_the_child_yields_every_item_in_order_then_its_error():
    received = []
    with pytest.raises(ValueError, match="after 50"):
        for item in read_ahead_in_process(numbers_then_error(50), depth=3, name="ra-child"):
            received.append(item)

    assert received == list(range(50))
    assert not [child for child in multiprocessing.active_children() if child.name == "ra-child"]


def test_the_child_really_is_another_process():
    def pids() -> Iterator[int]:
        yield os.getpid()

    assert list(read_ahead_in_process(pids())) != [os.getpid()]


def test_stopping_early_ends_the_child_before_control_returns():
    stream = read_ahead_in_process(iter(range(10**9)), name="ra-endless")
    assert next(stream) == 0
    stream.close()

    assert not [child for child in multiprocessing.active_children() if child.name == "ra-endless"]


def test_stopping_early_ends_a_child_that_inherited_a_raising_sigterm_handler():
    # A Celery prefork worker's SIGTERM handler raises SystemExit; a child that
    # inherited it used to catch its own terminate() and wait for room in a
    # full pipe nobody read any more, so the early stop never returned.
    def celery_like_handler(signum, frame):
        raise SystemExit(f"signal {signum}")

    def big_pages() -> Iterator[bytes]:
        while True:
            yield b"x" * 4_000_000  # more than a pipe buffer holds

    stopped = threading.Event()

    def consume_one_then_stop() -> None:
        stream = read_ahead_in_process(big_pages(), name="ra-celery-like")
        next(stream)
        stream.close()
        stopped.set()

    previous = signal.signal(signal.SIGTERM, celery_like_handler)
    try:
        consumer = threading.Thread(target=consume_one_then_stop, daemon=True)
        consumer.start()
        consumer.join(60)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stopped.is_set()
    assert not [child for child in multiprocessing.active_children() if child.name == "ra-celery-like"]


def test_a_child_that_dies_without_a_last_word_is_an_error_not_a_hang():
    def suicide() -> Iterator[int]:
        yield 1
        os._exit(3)

    received = []
    with pytest.raises(RuntimeError, match=r"ra-dies: the reader process ended \(exit code 3\)"):
        for item in read_ahead_in_process(suicide(), name="ra-dies"):
            received.append(item)
    # An item still in the child's pipe buffer when it died may be lost: the
    # caller learns of the death, and the import is idempotent to re-run.
    assert received in ([], [1])


@pytest.mark.parametrize(
    "error",
    [
        TransientError("HTTP 503", status=503),
        PermanentError("HTTP 403", status=403),
        OaiError("badArgument", "Illegal argument"),
    ],
    ids=["transient", "permanent", "oai"],
)
def test_a_source_error_from_the_reader_process_arrives_whole(error):
    def pages():
        yield "page 1"
        raise error

    received = []
    with pytest.raises(type(error)) as raised:
        for page in read_ahead_in_process(pages()):
            received.append(page)
    assert received == ["page 1"]
    assert (str(raised.value), raised.value.transient, raised.value.status) == (
        str(error),
        error.transient,
        error.status,
    )
    assert getattr(raised.value, "code", None) == getattr(error, "code", None)


def test_reading_ahead_takes_the_mode_a_source_asks_for():
    assert list(reading_ahead(iter([1, 2]), mode=READ_AHEAD_THREAD, name="t")) == [1, 2]
    assert list(reading_ahead(iter([1, 2]), mode=READ_AHEAD_PROCESS, name="p")) == [1, 2]
    assert list(reading_ahead(iter([1, 2]), mode=None, name="none")) == [1, 2]
    with pytest.raises(ValueError, match="unknown read-ahead mode"):
        reading_ahead(iter([1]), mode="fiber", name="x")
