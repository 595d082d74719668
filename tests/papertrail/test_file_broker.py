"""The embedded broker never hands a worker a message that is still being
written: a writer and a polling reader race over one folder, and every
message arrives whole (kombu's own file transport lost that race)."""

from __future__ import annotations

import threading
from queue import Empty

from kombu import Connection

from papertrail.file_broker import Transport
from papertrail.libraries import file_broker_options

MESSAGES = 1000


def race(tmp_path, transport: type | str) -> tuple[list[dict], list[Exception]]:
    options = file_broker_options(tmp_path, "race", poll_seconds=0.01)
    received: list[dict] = []
    errors: list[Exception] = []
    written = threading.Event()

    def read() -> None:
        with Connection("filesystem://", transport=transport, transport_options=options) as connection:
            channel = connection.default_channel
            while len(received) < MESSAGES and not (written.is_set() and channel._size("harvest") == 0):
                try:
                    received.append(channel._get("harvest"))
                except Empty:
                    continue
                except Exception as error:  # what a worker would die of
                    errors.append(error)
                    return

    reader = threading.Thread(target=read)
    reader.start()
    with Connection("filesystem://", transport=transport, transport_options=options) as connection:
        channel = connection.default_channel
        for number in range(MESSAGES):
            channel._put("harvest", {"number": number, "body": "x" * 200_000})
    written.set()
    reader.join(timeout=120)
    return received, errors


def test_every_message_arrives_whole_while_the_reader_polls(tmp_path):
    received, errors = race(tmp_path, Transport)
    assert errors == []
    assert sorted(message["number"] for message in received) == list(range(MESSAGES))
