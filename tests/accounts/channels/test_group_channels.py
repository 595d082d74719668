"""A lab group's channel: one message per period for the whole group (not one
per member), with the group trail's newest papers, in the group owner's
language and without rating links; paused after failures, its owner is told;
the group's deletion takes its channels."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.channels.models import Channel, ChannelSend
from accounts.channels.sending import retry_due_sends, send_channels
from accounts.channels.services import channel_create
from accounts.follows.services import follow_create
from accounts.groups.services import group_create, group_delete, invite_accept, invite_create, ownership_transfer
from tests.accounts.alerts.world import day_of_papers, reader
from tests.accounts.channels.world import PATHS, received, webhook_url
from tests.replay_server import Reply

pytestmark = pytest.mark.django_db


@pytest.fixture
def lab(db):
    owner = reader("owner", language="zh-hans")
    members = [reader("member"), reader("second")]
    group = group_create(owner=owner, name="Attention lab")
    _invite, token = invite_create(group=group, by=owner)
    for member in members:
        invite_accept(user=member, token=token)
    follow_create(group_id=group.pk, kind="category", value={"code": "cs.LG"}, name="Learning")
    day_of_papers()
    return {"owner": owner, "members": members, "group": group}


def group_channel(lab, server, kind: str = "webhook", **options) -> Channel:
    return channel_create(group=lab["group"], kind=kind, url=webhook_url(server, kind), rhythm="daily", **options)


def test_a_group_channel_gets_one_message_per_period_for_its_three_members(server, lab):
    channel = group_channel(lab, server)
    now = timezone.now()
    first = send_channels(now=now)
    again = send_channels(now=now + timezone.timedelta(minutes=30))
    assert (first.channels, first.sent, again.sent, again.skipped) == (1, 1, 0, 1)
    (body,) = received(server, "webhook")
    assert ChannelSend.objects.get(channel=channel).status == "sent"
    # The group trail's newest cs.LG cards, in the owner's language, without rating links.
    assert body["language"] == "zh-hans" and "篇论文" in body["title"]
    assert [paper["arxiv_id"] for paper in body["papers"]] == ["2611.00001", "2611.00002"]
    assert all(paper["more_url"] == "" and paper["less_url"] == "" for paper in body["papers"])
    assert body["rest_url"].endswith(f"/groups/{lab['group'].pk}/trail/")
    assert "稀疏注意力省一半" in body["papers"][0]["takeaway"]


def test_a_group_channel_speaks_the_language_of_whoever_owns_the_group_now(server, lab):
    group_channel(lab, server)
    ownership_transfer(group=lab["group"], to_user_id=lab["members"][0].pk)
    send_channels(now=timezone.now())
    (body,) = received(server, "webhook")
    assert body["language"] == "en" and "papers for" in body["title"]


def test_chat_formats_leave_the_rating_links_out_for_a_group(server, lab):
    group_channel(lab, server, kind="slack")
    group_channel(lab, server, kind="feishu")
    send_channels(now=timezone.now())
    (slack,) = received(server, "slack")
    (feishu,) = received(server, "feishu")
    assert "/rate/" not in str(slack) and "/rate/" not in str(feishu)
    assert "2611.00001" in str(slack) and "2611.00001" in str(feishu)


def test_repeated_failures_pause_a_group_channel_and_mail_the_groups_owner(
    server, lab, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    channel = group_channel(lab, server, kind="dingtalk")
    server.default(PATHS["dingtalk"], Reply(status=502, body=b"busy", content_type="text/plain"))
    at = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        send_channels(now=at)
        for _attempt in range(settings.CHANNEL_PAUSE_AFTER - 1):
            at = ChannelSend.objects.get(channel=channel).next_attempt_at or at
            retry_due_sends(now=at)
    channel.refresh_from_db()
    assert channel.paused
    (message,) = mail.outbox
    assert message.to == ["owner@example.org"]
    assert f"/groups/{lab['group'].pk}/#channels" in message.body


def test_a_group_follow_channel_takes_only_the_groups_follows(server, lab):
    with pytest.raises(Exception, match="follow"):
        channel_create(group=lab["group"], kind="webhook", url=webhook_url(server, "webhook"), follow_id=10**9)


def test_a_channel_is_a_users_or_a_groups_never_both_nor_neither(server, lab):
    channel = group_channel(lab, server)
    for user in (lab["owner"], None):
        with pytest.raises(IntegrityError), transaction.atomic():
            Channel.objects.filter(pk=channel.pk).update(user=user, group=None if user is None else lab["group"])


def test_deleting_the_group_deletes_its_channels_and_their_messages(server, lab):
    group_channel(lab, server)
    mine = channel_create(user=lab["owner"], kind="webhook", url=webhook_url(server, "webhook"), rhythm="daily")
    send_channels(now=timezone.now())
    assert ChannelSend.objects.count() == 2
    group_delete(group=lab["group"])
    assert list(Channel.objects.values_list("pk", flat=True)) == [mine.pk]
    assert list(ChannelSend.objects.values_list("channel_id", flat=True)) == [mine.pk]
