"""A real SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives, so
account tests read verification and reset mails as a person's inbox would."""

from __future__ import annotations

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

    async def handle_DATA(self, server, session, envelope) -> str:
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
