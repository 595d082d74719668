"""The value types and limits channels shows portal."""

from __future__ import annotations

from dataclasses import dataclass, field

from accounts.channels.secrets import ChannelsUnavailable

__all__ = ["ChannelError", "ChannelPaper", "ChannelsUnavailable", "Message", "Request"]


class ChannelError(Exception):
    """A bad channel parameter: `errors` maps each parameter to its messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{name}: {' '.join(texts)}" for name, texts in errors.items()))
        self.errors = errors


@dataclass
class ChannelPaper:
    """One paper of a message, as every channel kind shows it."""

    paper_id: int
    arxiv_id: str
    title: str
    takeaway: str
    why: str
    url: str
    more_url: str
    less_url: str


@dataclass
class Message:
    """A message before it is put in a provider's format."""

    title: str
    papers: list[ChannelPaper] = field(default_factory=list)
    rest_url: str = ""
    language: str = "en"
    test: bool = False


@dataclass
class Request:
    """A message as it goes out: where, its JSON body and any headers of its own."""

    url: str
    json: dict
    headers: dict[str, str] = field(default_factory=dict)
