"""A real SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives, so
account tests read verification and reset mails as a person's inbox would.
On demand it answers a recipient with a 4xx (a number of times) or a 5xx,
and it can hold a message's DATA unanswered until released, so a test can
kill the sender mid-send; a held message is then dropped, as a server drops
a message whose client went away before the reply."""

from __future__ import annotations

import asyncio
import email
import re
import socket
import threading
from email.message import EmailMessage
from email.policy import default

from aiosmtpd.controller import Controller


class Inbox:
    """aiosmtpd's handler: every accepted message, parsed."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self._lock = threading.Lock()
        self.transient: dict[str, int] = {}  # address -> how many more 451 replies
        self.refused: dict[str, str] = {}  # address -> the 5xx reply
        self.hold_data = False
        self.holding = threading.Event()  # set once a DATA is being held
        self.release = threading.Event()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:
        with self._lock:
            if address in self.refused:
                return self.refused[address]
            if self.transient.get(address, 0) > 0:
                self.transient[address] -= 1
                return "451 4.3.0 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.hold_data:
            self.holding.set()
            await asyncio.get_running_loop().run_in_executor(None, self.release.wait)
            return "451 4.3.0 Held and dropped"
        message = email.message_from_bytes(envelope.content, policy=default)
        with self._lock:
            self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        with self._lock:
            return [message for message in self.messages if address in message["To"]]

    @staticmethod
    def body(message: EmailMessage) -> str:
        return message.get_body(preferencelist=("plain",)).get_content()

    def link(self, address: str, pattern: str) -> str:
        """The one link matching `pattern` in the last mail to `address`."""
        (url,) = set(re.findall(pattern, self.body(self.to(address)[-1])))
        return url


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SmtpServer:
    def __init__(self) -> None:
        self.inbox = Inbox()
        self.port = free_port()
        self._controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)

    def start(self) -> SmtpServer:
        self._controller.start()  # returns once the server answers
        return self

    def stop(self) -> None:
        self._controller.stop()
