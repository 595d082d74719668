"""The embedded broker (`make run` without Redis): kombu's file-system
transport, with each message written under a temporary name and renamed into
the queue folder whole. kombu's own writer creates the message file and then
fills it, so a worker polling in between moved an empty file and died on it
("Unrecoverable error: JSONDecodeError"), taking `make run` down with it."""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        # A leading dot: the reader matches "<anything>.<queue>.msg" after the first dot only.
        partial = os.path.join(self.data_folder_out, f".{name}.partial")
        try:
            with open(partial, "wb") as message:
                message.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add file {name!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
