"""bench/channels.py at a tiny scale, on the test database: a period's
messages sent by a child process, then the sender killed by the stand-in with
a message in flight and restarted after the lease: every channel got exactly
one message, none twice."""

from __future__ import annotations

import pytest

from bench import channels

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.integration]


def test_a_killed_sender_restarted_sends_every_channel_once(subprocess_env):
    report = channels.run(researchers=5, groups=2, kill_after=0.5, env=subprocess_env)
    assert report["built"]["channels"] == 7
    assert report["send"]["sent"] == report["first_received"] == 7
    once = report["once"]
    assert once["killed_by_signal"] and once["killed_after_received"] == 3
    assert once["restart"]["interrupted"] == 1  # the message in flight: it arrived, and is not sent again
    assert (once["received"], once["channels_reached"], once["received_twice"]) == (7, 7, 0)
    assert sorted(channels.StandIn.received.values()) == [1] * 7
    assert once["statuses"] == {"sent": 6, "failed": 1} and once["sent_rows"] == 6
