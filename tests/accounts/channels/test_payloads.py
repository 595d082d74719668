"""What each provider receives: its documented webhook format (docs/channels.md),
as the stand-in recorded it, in the researcher's language, each paper with its
takeaway, why it matched and the signed "more / less like this" links."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.utils import timezone

from accounts.alerts.selectors import rating_link_target
from accounts.channels.models import ChannelSend
from accounts.channels.sending import send_channels
from tests.accounts.alerts.world import day_of_papers, follows, reader
from tests.accounts.channels.world import PATHS, add_channel, received, stand_in
from tests.conftest import PROJECT_ROOT

pytestmark = pytest.mark.django_db
DOCUMENTED = PROJECT_ROOT / "docs" / "channels"
RATING = re.compile(r"http://127\.0\.0\.1:8000/ratings/mail/([^/\s)\"'>|]+)/")


@pytest.fixture
def everywhere(server, alice):
    """A reader with the alerts' follows and day of papers, and one daily channel of every kind."""
    for kind in PATHS:
        add_channel(alice, server, kind, rhythm="daily", top_n=3)
    run = send_channels(now=timezone.now())
    assert run.sent == len(PATHS)
    return server, alice


def _one(server, kind: str) -> dict:
    (payload,) = received(server, kind)
    return payload


def test_feishu_and_lark_get_an_interactive_card(everywhere):
    server, _alice = everywhere
    for kind in ("feishu", "lark"):
        payload = _one(server, kind)
        assert payload["msg_type"] == "interactive"
        card = payload["card"]
        assert card["header"]["title"]["tag"] == "plain_text" and "3 papers" in card["header"]["title"]["content"]
        texts = [element["text"]["content"] for element in card["elements"] if element["tag"] == "div"]
        assert len(texts) == 3 and all(text.startswith("**[") for text in texts)
        first = next(text for text in texts if "Sparse attention" in text)
        assert "Sparse attention halves the cost." in first and "Why: Learning" in first
        buttons = [b for element in card["elements"] if element["tag"] == "action" for b in element["actions"]]
        assert {b["text"]["content"] for b in buttons} == {"More like this", "Less like this", "The rest of your trail"}
        assert all(b["tag"] == "button" and b["url"].startswith("http://127.0.0.1:8000/") for b in buttons)


def test_wecom_gets_markdown_and_dingtalk_an_action_card(everywhere):
    server, _alice = everywhere
    wecom = _one(server, "wecom")
    assert wecom["msgtype"] == "markdown" and set(wecom) == {"msgtype", "markdown"}
    assert len(wecom["markdown"]["content"].encode()) <= 4096
    assert "[More like this](http://127.0.0.1:8000/ratings/mail/" in wecom["markdown"]["content"]
    (request,) = server.requests_to(PATHS["wecom"])
    assert request.param("key") == "wecom-secret-key"
    ding = _one(server, "dingtalk")
    assert ding["msgtype"] == "actionCard"
    assert set(ding["actionCard"]) == {"title", "text", "btnOrientation", "singleTitle", "singleURL"}
    assert ding["actionCard"]["singleURL"] == "http://127.0.0.1:8000/trail/"
    assert "Sparse attention halves the cost." in ding["actionCard"]["text"]


def test_slack_gets_blocks_telegram_html_discord_embeds_ntfy_markdown_and_a_webhook_json(everywhere):
    server, _alice = everywhere
    slack = _one(server, "slack")
    assert slack["text"] and [block["type"] for block in slack["blocks"]] == [
        "header",
        "section",
        "section",
        "section",
        "actions",
    ]
    assert slack["blocks"][1]["text"]["type"] == "mrkdwn" and "|More like this>" in slack["blocks"][1]["text"]["text"]
    telegram = _one(server, "telegram")
    assert telegram["parse_mode"] == "HTML" and telegram["chat_id"] == "-1001234567890"
    assert '<a href="http://127.0.0.1:8000/ratings/mail/' in telegram["text"] and telegram["text"].startswith("<b>")
    discord = _one(server, "discord")
    assert len(discord["embeds"]) == 3 and discord["allowed_mentions"] == {"parse": []}
    assert all(embed["url"].startswith("http://127.0.0.1:8000/papers/") for embed in discord["embeds"])
    ntfy = _one(server, "ntfy")
    assert ntfy["topic"] == "papertrail-lab" and ntfy["markdown"] is True
    assert ntfy["click"] == "http://127.0.0.1:8000/trail/" and ntfy["actions"][0]["action"] == "view"
    webhook = _one(server, "webhook")
    assert set(webhook) == {"title", "language", "test", "papers", "rest_url"}
    assert set(webhook["papers"][0]) == {
        "paper_id",
        "arxiv_id",
        "title",
        "takeaway",
        "why",
        "url",
        "more_url",
        "less_url",
    }


def test_the_rating_links_are_the_alerts_signed_links_for_the_owner(everywhere):
    server, alice = everywhere
    webhook = _one(server, "webhook")
    for paper in webhook["papers"]:
        more = rating_link_target(RATING.search(paper["more_url"]).group(1))
        less = rating_link_target(RATING.search(paper["less_url"]).group(1))
        assert (more.user_id, more.paper_id, more.value) == (alice.pk, paper["paper_id"], 1)
        assert (less.user_id, less.value) == (alice.pk, -1)
    # Without a reading, the takeaway is the abstract's first sentence.
    assert {paper["takeaway"] for paper in webhook["papers"]} >= {"An abstract."}


def test_each_message_records_its_papers_before_the_send(everywhere):
    _server, alice = everywhere
    sends = ChannelSend.objects.filter(channel__user=alice)
    assert sends.count() == len(PATHS)
    assert {send.status for send in sends} == {"sent"}
    assert all(len(send.paper_ids) == 3 for send in sends)


def test_a_chinese_researcher_gets_chinese_messages(replay_server, settings):
    server = stand_in(replay_server, settings)
    wang = reader("wang", language="zh-hans")
    follows(wang)
    day_of_papers()
    add_channel(wang, server, "wecom", rhythm="daily")
    add_channel(wang, server, "webhook", rhythm="daily")
    send_channels(now=timezone.now())
    content = _one(server, "wecom")["markdown"]["content"]
    assert "多推荐这类" in content and "少推荐这类" in content and "稀疏注意力省一半" in content
    assert _one(server, "webhook")["language"] == "zh-hans"


def test_the_documented_payloads_are_what_the_stand_in_received(everywhere):
    """docs/channels/<kind>.json keeps one payload per provider as the stand-in
    received it; its shape (every key, at every depth) is today's."""
    server, _alice = everywhere

    def shape(value):
        if isinstance(value, dict):
            return {key: shape(item) for key, item in value.items()}
        if isinstance(value, list):
            return [shape(value[0])] if value else []
        return type(value).__name__

    for kind in PATHS:
        documented = json.loads((DOCUMENTED / f"{kind}.json").read_text(encoding="utf-8"))
        assert shape(documented) == shape(_one(server, kind)), kind


def write_documented_payloads(server, directory: Path) -> None:
    """Used once by hand (see docs/channels.md) to store what the stand-in received."""
    for kind in PATHS:
        text = json.dumps(_one(server, kind), ensure_ascii=False, indent=2)
        (directory / f"{kind}.json").write_text(text + "\n", encoding="utf-8")
