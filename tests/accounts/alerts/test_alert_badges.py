"""An alert labels each paper as every page does (harvest.badges), not by the
trail's event kind: a back-fill's 2016 paper is archival, a revision says
whether its change can be seen; read from a real SMTP server on loopback."""

from __future__ import annotations

import pytest

from accounts.alerts.sending import send_alerts
from tests.accounts.alerts.world import DAY, backfilled_and_gapped, day_of_papers, follows, reader

# Calendar: the alert is the day's, its items the window before now.
pytestmark = [pytest.mark.django_db, pytest.mark.calendar]


def _parts(message) -> dict[str, str]:
    return {part.get_content_type(): part.get_content() for part in message.walk() if not part.is_multipart()}


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            {
                "archival": "Archival · published 2016-03",
                "new": "New paper · v1",
                "revision": "Revision · v2",
                "changed": "what changed",
                "not_stored": "earlier versions not stored",
            },
        ),
        (
            "zh-hans",
            {
                "archival": "历史论文 · 2016-03 发布",
                "new": "新论文 · v1",
                "revision": "修订 · v2",
                "changed": "查看改动",
                "not_stored": "早期版本未收录",
            },
        ),
    ],
)
def test_the_alert_labels_papers_with_the_pages_badges(mailbox, language, words):
    alice = reader("alice", language=language)
    follows(alice)
    day_of_papers()
    backfilled_and_gapped()
    run = send_alerts(frequency="daily", day=DAY)
    assert run.sent == 1 and run.papers == 4
    parts = _parts(mailbox.to("alice@example.org")[0])
    text, html = parts["text/plain"], parts["text/html"]
    assert f"[{words['archival']}] Archival learning paper" in text
    assert f"[{words['new']}] Sparse attention for long documents" in text
    assert f"[{words['revision']}] Old learning paper" in text
    assert f"[{words['revision']} · {words['not_stored']}] Arrived at its second version" in text
    assert text.count(words["new"]) == 1  # the 2016 paper is never called new
    assert 'data-badge-kind="archival"' in html and words["archival"] in html
    assert '/papers/2611.00002/#v2">' + words["changed"] in html
    assert html.count(words["changed"]) == 1 and html.count(words["not_stored"]) == 1
