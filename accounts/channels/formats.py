"""A message in each provider's own webhook format (docs/channels.md cites
each provider's documentation and keeps one payload each, as the tests'
stand-in received it). The text of a message comes from templates/channels/;
only the JSON envelope each provider asks for is built here.

- Feishu / Lark: `msg_type: interactive`, a card of `div` (lark_md) and
  `action` (link buttons) elements.
- WeCom: `msgtype: markdown` (the news type holds eight links and no rating links).
- DingTalk: `msgtype: actionCard`, markdown text and one button to the rest.
- Slack: `blocks` (header, a mrkdwn section per paper, a link button) and `text` as fallback.
- Telegram: Bot API sendMessage with `parse_mode: HTML`.
- Discord: execute webhook, one embed per paper (at most 10).
- ntfy: JSON publishing to the server root, markdown on.
- webhook: the message as plain JSON.

A signing secret or an access token is added last (accounts/channels/signing.py).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.template.loader import get_template
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.channels.models import Channel
from accounts.channels.signing import signed
from accounts.channels.types import ChannelPaper, Message, Request

_PAPER_MD = get_template("channels/paper.md")
_MESSAGE_MD = get_template("channels/message.md")
_SLACK_PAPER = get_template("channels/slack_paper.txt")
_TELEGRAM = get_template("channels/telegram.html")

# Providers' limits on one message (bytes for WeCom, characters elsewhere).
WECOM_MARKDOWN_BYTES = 4096
TELEGRAM_CHARACTERS = 4096
DISCORD_EMBEDS = 10


def _link_text(text: str) -> str:
    # Brackets would end a markdown link's text early.
    return text.replace("[", "(").replace("]", ")")


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _markdown_papers(message: Message) -> list[str]:
    return [
        _PAPER_MD.render({"paper": dataclasses.replace(p, title=_link_text(p.title))}).strip() for p in message.papers
    ]


def _markdown(message: Message, papers: list[str] | None = None) -> str:
    blocks = _markdown_papers(message) if papers is None else papers
    return _MESSAGE_MD.render({"message": message, "blocks": blocks}).strip()


def _fit_bytes(message: Message, limit: int) -> str:
    """The markdown with as many papers as fit in `limit` bytes (the rest link stays)."""
    papers = _markdown_papers(message)
    while True:
        text = _markdown(message, papers)
        if len(text.encode()) <= limit or not papers:
            return text
        papers = papers[:-1]


def _feishu(url: str, message: Message) -> Request:
    elements: list[dict] = []
    if message.test:
        elements.append({"tag": "div", "text": {"tag": "plain_text", "content": _test_line()}})
    for paper in message.papers:
        text = f"**[{_link_text(paper.title)}]({paper.url})**"
        if paper.takeaway:
            text += f"\n{paper.takeaway}"
        text += f"\n{_('Why')}: {paper.why}"
        elements.append({"tag": "div", "text": {"tag": "lark_md", "content": text}})
        if paper.more_url:  # a group channel's papers have no rating links (ratings are personal)
            elements.append(
                {
                    "tag": "action",
                    "actions": [
                        _feishu_button(_("More like this"), paper.more_url, "default"),
                        _feishu_button(_("Less like this"), paper.less_url, "default"),
                    ],
                }
            )
        elements.append({"tag": "hr"})
    if message.rest_url:
        elements.append({"tag": "action", "actions": [_feishu_button(_("The rest of your trail"), message.rest_url)]})
    card = {
        "config": {"wide_screen_mode": True},
        "header": {"title": {"tag": "plain_text", "content": message.title}, "template": "blue"},
        "elements": elements,
    }
    return Request(url, {"msg_type": "interactive", "card": card})


def _feishu_button(label: str, url: str, kind: str = "primary") -> dict:
    return {"tag": "button", "text": {"tag": "plain_text", "content": label}, "url": url, "type": kind}


def _test_line() -> str:
    return _("This is a test message: this channel will get your trail here.")


def _wecom(url: str, message: Message) -> Request:
    return Request(url, {"msgtype": "markdown", "markdown": {"content": _fit_bytes(message, WECOM_MARKDOWN_BYTES)}})


def _dingtalk(url: str, message: Message) -> Request:
    card = {"title": message.title, "text": _markdown(message), "btnOrientation": "0"}
    if message.rest_url:
        card |= {"singleTitle": _("The rest of your trail"), "singleURL": message.rest_url}
    return Request(url, {"msgtype": "actionCard", "actionCard": card})


def _slack(url: str, message: Message) -> Request:
    blocks: list[dict] = [{"type": "header", "text": {"type": "plain_text", "text": message.title[:150]}}]
    if message.test:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": _test_line()}})
    for paper in message.papers:
        escaped = dataclasses.replace(
            paper,
            title=_slack_escape(paper.title),
            takeaway=_slack_escape(paper.takeaway),
            why=_slack_escape(paper.why),
        )
        text = _SLACK_PAPER.render({"paper": escaped}).strip()
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text[:3000]}})
    if message.rest_url:
        button = {"type": "button", "text": {"type": "plain_text", "text": _("The rest of your trail")}}
        blocks.append({"type": "actions", "elements": [button | {"url": message.rest_url}]})
    return Request(url, {"text": message.title, "blocks": blocks})


def _telegram(secret: dict, message: Message) -> Request:
    papers = list(message.papers)
    while True:
        text = _TELEGRAM.render({"message": dataclasses.replace(message, papers=papers)}).strip()
        if len(text) <= TELEGRAM_CHARACTERS or not papers:
            break
        papers = papers[:-1]
    url = f"{settings.CHANNEL_TELEGRAM_API}/bot{secret['token']}/sendMessage"
    body = {"chat_id": secret["chat_id"], "text": text, "parse_mode": "HTML", "disable_web_page_preview": True}
    return Request(url, body)


def _discord(url: str, message: Message) -> Request:
    embeds = []
    for paper in message.papers[:DISCORD_EMBEDS]:
        lines = [paper.takeaway] if paper.takeaway else []
        lines.append(f"*{_('Why')}: {paper.why}*")
        if paper.more_url:
            lines.append(f"[{_('More like this')}]({paper.more_url}) · [{_('Less like this')}]({paper.less_url})")
        embeds.append({"title": paper.title[:256], "url": paper.url, "description": "\n".join(lines)[:4096]})
    content = message.title
    if message.test:
        content += "\n" + _test_line()
    if message.rest_url:
        content += f"\n{_('The rest of your trail')}: {message.rest_url}"
    return Request(url, {"content": content[:2000], "embeds": embeds, "allowed_mentions": {"parse": []}})


def _ntfy(url: str, message: Message) -> Request:
    """JSON publishing goes to the server's root with the topic in the body
    (a user and password in the address go in a header: signing.py)."""
    parts = urlsplit(url)
    topic = parts.path.strip("/")
    root = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], "/", "", ""))
    body: dict = {"topic": topic, "title": message.title, "message": _markdown(message), "markdown": True}
    if message.rest_url:
        body |= {
            "click": message.rest_url,
            "actions": [{"action": "view", "label": _("The rest of your trail"), "url": message.rest_url}],
        }
    return Request(root, body)


def _webhook(url: str, message: Message) -> Request:
    return Request(
        url,
        {
            "title": message.title,
            "language": message.language,
            "test": message.test,
            "papers": [dataclasses.asdict(paper) for paper in message.papers],
            "rest_url": message.rest_url,
        },
    )


_BY_URL = {
    Channel.Kind.FEISHU: _feishu,
    Channel.Kind.LARK: _feishu,
    Channel.Kind.WECOM: _wecom,
    Channel.Kind.DINGTALK: _dingtalk,
    Channel.Kind.SLACK: _slack,
    Channel.Kind.DISCORD: _discord,
    Channel.Kind.NTFY: _ntfy,
    Channel.Kind.WEBHOOK: _webhook,
}


def build_request(kind: str, secret: dict, message: Message, *, now: datetime) -> Request:
    """The HTTP request that delivers `message` to a channel of this kind, in
    its language, signed at `now` when the channel has a signing secret."""
    with translation.override(message.language):
        if kind == Channel.Kind.TELEGRAM:
            return _telegram(secret, message)
        return signed(kind, secret, _BY_URL[kind](secret["url"], message), now=now)


__all__ = ["ChannelPaper", "Request", "build_request"]
